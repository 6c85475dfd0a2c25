-- The state of the SPEC 2 application. Idempotent: run on every start.
-- Ids use the "C" collation so that ORDER BY id is byte order on every
-- server (lock ordering in checkout, the ascending-id tie-break of freq-items).
-- Quantities that are added to (stock, credits, cart amounts, totals, counts)
-- are bigint: 10^9 + many additions of up to 2^31-1 overflow int.

CREATE TABLE IF NOT EXISTS products (
  id    text COLLATE "C" PRIMARY KEY,
  price integer NOT NULL CHECK (price >= 0),
  stock bigint  NOT NULL CHECK (stock >= 0)
);

CREATE TABLE IF NOT EXISTS users (
  id      text COLLATE "C" PRIMARY KEY,
  credits bigint NOT NULL CHECK (credits >= 0)
);

CREATE TABLE IF NOT EXISTS carts (
  id          text COLLATE "C" PRIMARY KEY,
  checked_out boolean NOT NULL DEFAULT false
);

CREATE TABLE IF NOT EXISTS cart_items (
  cart_id    text COLLATE "C" NOT NULL REFERENCES carts (id),
  product_id text COLLATE "C" NOT NULL REFERENCES products (id),
  amount     bigint NOT NULL CHECK (amount > 0),
  PRIMARY KEY (cart_id, product_id)
);

CREATE TABLE IF NOT EXISTS orders (
  id         text COLLATE "C" PRIMARY KEY,
  cart_id    text COLLATE "C" NOT NULL REFERENCES carts (id),
  user_id    text COLLATE "C" NOT NULL REFERENCES users (id),
  status     text NOT NULL CHECK (status IN ('completed', 'failed')),
  total      bigint NOT NULL CHECK (total >= 0),
  failure    text,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- "Frequently bought together": count[p][q], kept symmetric by the writer.
CREATE TABLE IF NOT EXISTS co_purchase (
  p     text COLLATE "C" NOT NULL,
  q     text COLLATE "C" NOT NULL,
  count bigint NOT NULL CHECK (count > 0),
  PRIMARY KEY (p, q)
);

-- top(p, n, V) reads the first rows of p in this order and skips V.
CREATE INDEX IF NOT EXISTS co_purchase_top ON co_purchase (p, count DESC, q);

-- SPEC 8 microbenchmarks. /micro/io writes its payload here and reads it back.
CREATE TABLE IF NOT EXISTS micro_io (
  key     text COLLATE "C" PRIMARY KEY,
  payload bytea NOT NULL
);

-- The entities of one messaging request (run): what each received (pingpong,
-- big) and the slice it was sent or answers (divide). Rows are deleted when
-- the request answers.
CREATE TABLE IF NOT EXISTS micro_entities (
  run      text COLLATE "C" NOT NULL,
  id       text COLLATE "C" NOT NULL,
  received bigint NOT NULL DEFAULT 0,
  slice    integer[],
  PRIMARY KEY (run, id)
);

-- A message to an entity: one call of this function, executed by PostgreSQL.
-- The receiver counts it in its row and answers with the payload (the pong).
CREATE OR REPLACE FUNCTION micro_deliver(p_run text, p_id text, p_payload bytea) RETURNS bytea
LANGUAGE sql AS $$
  INSERT INTO micro_entities AS e (run, id, received) VALUES (p_run, p_id, 1)
  ON CONFLICT (run, id) DO UPDATE SET received = e.received + 1;
  SELECT p_payload;
$$;
