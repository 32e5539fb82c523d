-- The example shop database: `sqlite3 shop.sqlite < shop.sql` makes
-- shop.sqlite (committed, so `switchboard serve examples/databases` works
-- from a fresh clone).
PRAGMA page_size = 4096;
PRAGMA journal_mode = DELETE;

CREATE TABLE customers (
    id      INTEGER PRIMARY KEY,
    name    TEXT NOT NULL,
    email   TEXT NOT NULL UNIQUE,
    country TEXT NOT NULL,
    ssn     TEXT            -- excluded in switchboard.toml: never seen by the model
);

CREATE TABLE orders (
    id          INTEGER PRIMARY KEY,
    customer_id INTEGER NOT NULL REFERENCES customers(id),
    total       REAL NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('open', 'shipped', 'cancelled')),
    created_at  TEXT NOT NULL
);
CREATE INDEX orders_by_customer ON orders(customer_id, created_at);

-- Excluded as a whole table.
CREATE TABLE audit_log (
    id      INTEGER PRIMARY KEY,
    at      TEXT NOT NULL,
    message TEXT NOT NULL
);

INSERT INTO customers (id, name, email, country, ssn) VALUES
    (1, 'Ada Lovelace',   'ada@example.com',    'GB', '000-00-0001'),
    (2, 'Grace Hopper',   'grace@example.com',  'US', '000-00-0002'),
    (3, 'Alan Turing',    'alan@example.com',   'GB', '000-00-0003'),
    (4, 'Édith Piaf',     'edith@example.com',  'FR', '000-00-0004');

INSERT INTO orders (id, customer_id, total, status, created_at) VALUES
    (1, 1, 12.50,  'shipped',   '2026-01-03T10:00:00Z'),
    (2, 1, 99.00,  'open',      '2026-02-11T09:30:00Z'),
    (3, 2, 5.25,   'cancelled', '2026-02-12T16:45:00Z'),
    (4, 2, 250.00, 'shipped',   '2026-03-01T08:00:00Z'),
    (5, 3, 42.00,  'open',      '2026-03-15T12:00:00Z'),
    (6, 4, 18.75,  'open',      '2026-03-20T18:20:00Z');

INSERT INTO audit_log (at, message) VALUES
    ('2026-03-20T18:21:00Z', 'refund issued to customer 2');
