package dev.sfbench.statefun;

import org.apache.flink.statefun.sdk.FunctionType;
import org.apache.flink.statefun.sdk.io.EgressIdentifier;
import org.apache.flink.statefun.sdk.io.IngressIdentifier;

/** Names of the job's functions, ingress and egress. */
public final class Ids {
  private Ids() {}

  public static final String NAMESPACE = "sfbench";
  public static final FunctionType PRODUCT = new FunctionType(NAMESPACE, "product");
  public static final FunctionType USER = new FunctionType(NAMESPACE, "user");
  public static final FunctionType CART = new FunctionType(NAMESPACE, "cart");
  public static final FunctionType ORDER = new FunctionType(NAMESPACE, "order");
  /** the coordinator of one freq-items query (keyed by the request's correlation id) */
  public static final FunctionType QUERY = new FunctionType(NAMESPACE, "query");
  /** the SPEC 8 microbenchmark entities (fn/MicroFn) */
  public static final FunctionType MICRO = new FunctionType(NAMESPACE, "micro");

  public static final IngressIdentifier<Msg> REQUESTS = new IngressIdentifier<>(Msg.class, NAMESPACE, "requests");
  public static final EgressIdentifier<Reply> REPLIES = new EgressIdentifier<>(NAMESPACE, "replies", Reply.class);
}
