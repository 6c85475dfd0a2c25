/**
 * The largest micro requests SPEC 8 allows, with what each must answer: a
 * target's own test sends them to the target as sfbench starts it, where each
 * must answer before its no-answer deadline.
 */
import { divideExpected } from "@sfbench/conformance";

export interface LargestMicroRequest {
  path: string;
  body: Record<string, number>;
  /** What the answer's body must contain. */
  expected: Record<string, unknown>;
}

export function largestMicroRequests(): LargestMicroRequest[] {
  const divide = { items: 1_000_000, fanout: 2, seed: 1 };
  return [
    { path: "/micro/divide", body: divide, expected: { ...divideExpected(divide) } },
    {
      path: "/micro/big",
      body: { entities: 10_000, messages: 1_000_000, seed: 11 },
      expected: { entities: 10_000, messages: 1_000_000, delivered: 1_000_000 },
    },
    { path: "/micro/pingpong", body: { pairs: 64, messages: 100, bytes: 65_536 }, expected: { pairs: 64, messages: 6400 } },
    { path: "/micro/pingpong", body: { pairs: 1, messages: 100_000, bytes: 0 }, expected: { pairs: 1, messages: 100_000 } },
  ];
}
