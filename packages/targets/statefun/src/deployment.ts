/**
 * A deployment's Kafka topics: created with fresh names on a fresh start and
 * remembered in $SFBENCH_DATA_DIR/deployment.json, so that a start on the
 * same data (a restart after a crash or a stop, a restored copy of it) finds
 * the topics whose offsets its Flink checkpoint holds. Nothing deletes them:
 * the broker is the target's own, and a fresh start empties it with the data
 * directory.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Kafka, logLevel } from "kafkajs";
import { z } from "zod";

export const Deployment = z.object({
  id: z.string().regex(/^[0-9a-f]{12}$/),
  ingressTopic: z.string().min(1),
  egressTopic: z.string().min(1),
  consumerGroup: z.string().min(1),
  createdAt: z.string(),
});
export type Deployment = z.infer<typeof Deployment>;

const file = (dataDir: string) => join(dataDir, "deployment.json");

function admin(brokers: string) {
  return new Kafka({
    clientId: "sfbench-statefun-launcher",
    brokers: brokers.split(","),
    logLevel: logLevel.NOTHING,
    retry: { retries: 5 },
  }).admin();
}

/** The deployment of an earlier start (a restart after a crash), or undefined on a fresh data directory. */
export function existingDeployment(dataDir: string): Deployment | undefined {
  if (!existsSync(file(dataDir))) return undefined;
  const parsed = Deployment.safeParse(JSON.parse(readFileSync(file(dataDir), "utf8")));
  if (!parsed.success) throw new Error(`${file(dataDir)}: not a deployment file: ${parsed.error.message}`);
  return parsed.data;
}

/**
 * The topics of this start: those of the earlier start if the data directory
 * has one, else new ones. Creating a topic that exists is not an error.
 */
export async function openDeployment(dataDir: string, brokers: string, partitions: number): Promise<{ deployment: Deployment; restored: boolean }> {
  const earlier = existingDeployment(dataDir);
  const id = earlier?.id ?? randomBytes(6).toString("hex");
  const deployment: Deployment = earlier ?? {
    id,
    ingressTopic: `sfbench.statefun.${id}.requests`,
    egressTopic: `sfbench.statefun.${id}.replies`,
    consumerGroup: `sfbench.statefun.${id}`,
    createdAt: new Date().toISOString(),
  };
  const client = admin(brokers);
  await client.connect();
  try {
    await client.createTopics({
      waitForLeaders: true,
      topics: [
        { topic: deployment.ingressTopic, numPartitions: partitions, replicationFactor: 1 },
        { topic: deployment.egressTopic, numPartitions: 1, replicationFactor: 1 },
      ],
    });
  } finally {
    await client.disconnect();
  }
  writeFileSync(file(dataDir), JSON.stringify(deployment, null, 2));
  return { deployment, restored: earlier !== undefined };
}
