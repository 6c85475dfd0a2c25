/**
 * Requests to the StateFun job through Kafka. Each request gets a correlation
 * id and goes to the ingress topic (keyed by the entity id, so one entity's
 * requests stay in order); the function that finishes it writes an answer with
 * that id to the egress topic, and the waiting HTTP request is answered.
 *
 * A request without an answer after `timeoutMs` is given up: it fails with
 * NoAnswer (the gateway answers 504 no-answer) and is counted. An answer that
 * arrives after that is counted as late. These counters are what the 2023
 * study saw as lost requests.
 */
import { randomUUID } from "node:crypto";
import { Partitioners, type Consumer, type Producer } from "kafkajs";
import { z } from "zod";
import { kafkaClient } from "./kafka-client.ts";

/** A request as the job's RequestDeserializer reads it (fields of dev.sfbench.statefun.Msg). */
export interface Request {
  type: string;
  /** the addressed entity; undefined: the correlation id (a query's coordinator) */
  key?: string;
  traceId?: string;
  parentSpan?: string;
  price?: number;
  stock?: number;
  credits?: number;
  amount?: number;
  productId?: string;
  cartId?: string;
  userId?: string;
  orderId?: string;
  top?: number;
  depth?: number;
  // SPEC 8 micro routes
  n?: number;
  ms?: number;
  bytes?: number;
  pairs?: number;
  messages?: number;
  count?: number;
  fanout?: number;
  leaf?: number;
  seed?: number;
  entities?: number;
}

export const Answer = z.object({ id: z.string(), status: z.number().int(), body: z.string().nullable().optional() });
export type Answer = z.infer<typeof Answer>;

/** The job did not answer in time: lost, or stuck behind a backlog. */
export class NoAnswer extends Error {
  override name = "NoAnswer";
}

/** The request could not be written to Kafka. */
export class IngressFailed extends Error {
  override name = "IngressFailed";
}

export interface BridgeStats {
  /** requests sent (pings excluded) */
  requests: number;
  answered: number;
  /** requests given up after the timeout, answered 504 no-answer */
  noAnswer: number;
  /** answers that arrived after their request was given up */
  lateAnswers: number;
  /** requests that could not be written to Kafka */
  ingressFailures: number;
  /** waiting for an answer now */
  pending: number;
}

interface Pending {
  resolve(answer: Answer): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
  counted: boolean;
}

export interface BridgeOptions {
  brokers: string[];
  ingressTopic: string;
  egressTopic: string;
  timeoutMs: number;
  /** a failure of the egress consumer (the gateway logs it) */
  onError(error: Error): void;
}

/** given-up ids remembered to recognise late answers */
const MAX_REMEMBERED = 100_000;

export class KafkaBridge {
  private readonly producer: Producer;
  private readonly consumer: Consumer;
  private readonly pending = new Map<string, Pending>();
  private readonly givenUp = new Set<string>();
  private queue: Array<{ id: string; key: string; value: string }> = [];
  private flushScheduled = false;
  private sending = false;
  private readonly counters = { requests: 0, answered: 0, noAnswer: 0, lateAnswers: 0, ingressFailures: 0 };

  constructor(private readonly opts: BridgeOptions) {
    const kafka = kafkaClient(opts.brokers, "sfbench-statefun-gateway");
    // idempotent: a retried produce never writes a request twice (adding credits twice would be wrong)
    this.producer = kafka.producer({
      createPartitioner: Partitioners.DefaultPartitioner,
      allowAutoTopicCreation: false,
      idempotent: true,
      maxInFlightRequests: 1,
    });
    // a group of its own per gateway start: it reads only answers written from now on
    this.consumer = kafka.consumer({ groupId: `${opts.egressTopic}.gateway.${randomUUID()}`, maxWaitTimeInMs: 100, allowAutoTopicCreation: false });
  }

  async connect(): Promise<void> {
    await this.producer.connect();
    await this.consumer.connect();
    await this.consumer.subscribe({ topic: this.opts.egressTopic, fromBeginning: false });
    this.consumer.on(this.consumer.events.CRASH, (e) => this.opts.onError(e.payload.error));
    await this.consumer.run({
      // nothing to commit: a gateway's group is its own and always starts at the end of the topic
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        for (const message of batch.messages) if (message.value) this.receive(message.value.toString());
      },
    });
  }

  /**
   * Sends a request and resolves with its answer; rejects with NoAnswer or IngressFailed. `internal` requests (pings) are not counted.
   * `extraMs` is added to the timeout, for requests whose work grows with their input (micro routes).
   */
  request(request: Request, opts: { timeoutMs?: number; extraMs?: number; internal?: boolean } = {}): Promise<Answer> {
    const id = randomUUID();
    const key = request.key ?? id;
    const value = JSON.stringify({ ...request, key, corr: id });
    const counted = !opts.internal;
    if (counted) this.counters.requests++;
    return new Promise<Answer>((resolve, reject) => {
      const timeoutMs = Math.ceil((opts.timeoutMs ?? this.opts.timeoutMs) + (opts.extraMs ?? 0));
      const timer = setTimeout(() => {
        if (!this.pending.delete(id)) return;
        if (counted) {
          this.counters.noAnswer++;
          this.givenUp.add(id);
          if (this.givenUp.size > MAX_REMEMBERED) this.givenUp.delete(this.givenUp.values().next().value!);
        }
        reject(new NoAnswer(`StateFun did not answer ${request.type} for ${key} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer, counted });
      this.queue.push({ id, key, value });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /**
   * One produce request at a time (the idempotent producer allows one in
   * flight anyway): what is queued meanwhile goes out together in the next,
   * so batches grow with the load instead of queueing one by one in kafkajs.
   */
  private flush(): void {
    this.flushScheduled = false;
    if (this.sending || this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    this.sending = true;
    this.producer
      .send({ topic: this.opts.ingressTopic, acks: -1, messages: batch.map(({ key, value }) => ({ key, value })) })
      .catch((e: Error) => {
        for (const { id } of batch) {
          const p = this.pending.get(id);
          if (!p) continue;
          this.pending.delete(id);
          clearTimeout(p.timer);
          if (p.counted) this.counters.ingressFailures++;
          p.reject(new IngressFailed(`could not write the request to Kafka: ${e.message}`));
        }
      })
      .finally(() => {
        this.sending = false;
        this.flush();
      });
  }

  private receive(text: string): void {
    let answer: Answer;
    try {
      answer = Answer.parse(JSON.parse(text));
    } catch {
      return; // nothing but the job writes this topic
    }
    const p = this.pending.get(answer.id);
    if (p) {
      this.pending.delete(answer.id);
      clearTimeout(p.timer);
      if (p.counted) this.counters.answered++;
      p.resolve(answer);
    } else if (this.givenUp.delete(answer.id)) {
      this.counters.lateAnswers++;
    }
    // any other id: an answer repeated by a replay after a restore, for a request of an earlier gateway
  }

  stats(): BridgeStats {
    return { ...this.counters, pending: this.pending.size };
  }

  /** Fails what still waits (NoAnswer), then disconnects. */
  async close(): Promise<void> {
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      this.pending.delete(id);
      p.reject(new NoAnswer("the gateway is shutting down"));
    }
    await Promise.allSettled([this.consumer.disconnect(), this.producer.disconnect()]);
  }
}
