/** Users: credits. */
import { randomUUID } from "node:crypto";
import type { User } from "@sfbench/core";
import type { Db } from "./db.ts";
import { notFound } from "./errors.ts";
import { traced, type Trace } from "./trace.ts";

export async function createUser(db: Db, credits = 0, trace?: Trace): Promise<string> {
  const id = randomUUID();
  await traced(trace, "user", "create", id, () =>
    db.query({ name: "user-create", text: "INSERT INTO users (id, credits) VALUES ($1, $2)", values: [id, credits] }),
  );
  return id;
}

export async function getUser(db: Db, id: string, trace?: Trace): Promise<User> {
  const { rows } = await traced(trace, "user", "get", id, () =>
    db.query<User>({ name: "user-get", text: "SELECT id, credits FROM users WHERE id = $1", values: [id] }),
  );
  const user = rows[0];
  if (!user) throw notFound("user", id);
  return user;
}

export async function addCredits(db: Db, id: string, credits: number, trace?: Trace): Promise<void> {
  const { rowCount } = await traced(trace, "user", "addCredits", id, () =>
    db.query({ name: "user-add-credits", text: "UPDATE users SET credits = credits + $2 WHERE id = $1", values: [id, credits] }),
  );
  if (!rowCount) throw notFound("user", id);
}
