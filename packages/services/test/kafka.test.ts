import { randomUUID } from "node:crypto";
import { Kafka, logLevel, Partitioners } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kafkaBrokers, status, up } from "../src/index.ts";

describe("kafka", () => {
  const kafka = new Kafka({ clientId: "services-test", brokers: kafkaBrokers(), logLevel: logLevel.WARN });
  const topic = `services-test-${randomUUID()}`;

  beforeAll(async () => {
    await up(["kafka"]);
  });

  afterAll(async () => {
    const admin = kafka.admin();
    await admin.connect();
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
  });

  it("status reports the broker running on 127.0.0.1", async () => {
    const [s] = await status(["kafka"]);
    expect(s).toMatchObject({ name: "kafka", running: true });
    expect(kafkaBrokers()).toEqual([expect.stringMatching(/^127\.0\.0\.1:\d+$/)]);
  });

  it("delivers a produced message to a consumer", async () => {
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
    await admin.disconnect();

    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    await producer.send({ topic, messages: [{ key: "k", value: "hello from sfbench" }] });
    await producer.disconnect();

    const consumer = kafka.consumer({ groupId: `services-test-${randomUUID()}` });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const received = await new Promise<string>((resolve) => {
      void consumer.run({ eachMessage: async ({ message }) => resolve(message.value?.toString() ?? "") });
    });
    await consumer.disconnect();
    expect(received).toBe("hello from sfbench");
  });
});
