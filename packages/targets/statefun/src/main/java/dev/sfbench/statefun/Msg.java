package dev.sfbench.statefun;

import java.util.ArrayList;

/**
 * Every message of the job: the requests the gateway puts on the ingress topic
 * (decoded from JSON) and the messages functions send each other. One class
 * with a {@code type} ("product.retract", "order.retracted", ...) keeps the
 * Kryo payloads and the dispatch simple; each type uses a few of the fields.
 *
 * <p>{@code corr} is the gateway's correlation id: the function that finishes a
 * request sends a {@link Reply} with it to the egress. {@code traceId} and
 * {@code parentSpan} carry the request's trace (SPEC 3) from message to message;
 * both are absent (null) for a request the gateway does not trace (tracing off,
 * or a traceparent that is missing or not sampled), and so are they in every
 * message that request causes.
 */
public class Msg {
  public String type;
  public String corr;
  public String traceId;
  public String parentSpan;
  /** the id of the addressed entity (ingress routing) */
  public String key;

  public Long price;
  public Long stock;
  public Long credits;
  public Long amount;
  public Long total;
  public String productId;
  public String cartId;
  public String userId;
  public String orderId;
  public Integer top;
  public Integer depth;
  public boolean ok;
  /** the HTTP status of an outcome (cart.checkoutDone) */
  public Integer status;
  public String code;
  public String message;
  public ArrayList<String> ids;
  public ArrayList<String> exclude;
  public ArrayList<Item> items;

  // SPEC 8 microbenchmarks (MicroFn)
  public Integer n;
  public Integer ms;
  public Integer bytes;
  public Integer pairs;
  public Integer messages;
  public Integer count;
  public Integer fanout;
  public Integer leaf;
  public Integer entities;
  public Integer index;
  public Integer expect;
  public Long seed;
  /** the entity that coordinates a micro request (its key): ping's coordinator, a divide node's parent, a big round */
  public String round;
  public byte[] payload;
  /** divide: a slice of the input, or a sorted run */
  public int[] values;
  /** pingpong: round trips per histogram bucket */
  public long[] hist;
  public Long startNs;
  public Long endNs;

  public Msg() {}

  /** A message of another type that belongs to the same request (correlation id and trace). */
  public Msg follow(String newType) {
    Msg m = new Msg();
    m.type = newType;
    m.corr = corr;
    m.traceId = traceId;
    m.parentSpan = parentSpan;
    return m;
  }

  /** The operation part of the type: "retract" of "product.retract". */
  public String op() {
    int dot = type.indexOf('.');
    return dot < 0 ? type : type.substring(dot + 1);
  }

  /** One line of a cart or an order. */
  public static class Item {
    public String productId;
    public long amount;
    /** the unit price a product answered with (orders only) */
    public long price;
    /** whether the product retracted the amount (orders only) */
    public boolean retracted;

    public Item() {}

    public Item(String productId, long amount) {
      this.productId = productId;
      this.amount = amount;
    }
  }
}
