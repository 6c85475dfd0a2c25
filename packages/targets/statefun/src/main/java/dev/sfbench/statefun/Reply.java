package dev.sfbench.statefun;

/** The answer to one gateway request, written to the egress topic as JSON. */
public class Reply {
  /** the request's correlation id */
  public String id;
  /** the HTTP status the gateway answers with */
  public int status;
  /** the JSON text of the response body; null for an empty body */
  public String body;

  public Reply() {}

  public Reply(String id, int status, String body) {
    this.id = id;
    this.status = status;
    this.body = body;
  }
}
