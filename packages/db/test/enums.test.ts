/** The database's enums are the run contract's lists (core src/lists.ts): a list changed in one place only fails here. */
import { DISTRIBUTIONS, ENVIRONMENT_KINDS, PROFILES, WORKLOADS } from "@sfbench/core";
import { describe, expect, it } from "vitest";
import { Distribution, EnvironmentKind, Profile, Workload } from "../src/generated/enums.ts";

describe("Prisma enums", () => {
  it("hold exactly the run contract's workloads, distributions, profiles and environment kinds", () => {
    expect(Object.values(Workload)).toEqual([...WORKLOADS]);
    expect(Object.values(Distribution)).toEqual([...DISTRIBUTIONS]);
    expect(Object.values(Profile)).toEqual([...PROFILES]);
    expect(Object.values(EnvironmentKind)).toEqual([...ENVIRONMENT_KINDS]);
  });
});
