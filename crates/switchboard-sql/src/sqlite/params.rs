//! The types of a statement's parameters, as far as SQLite itself knows
//! them. SQLite has no parameter types, but the program it compiles for a
//! statement applies an affinity to each value before comparing or storing
//! it: `customer_id = :c` on an INTEGER column compares with NUMERIC
//! affinity, `id = :id` on the rowid must be an integer, `SET status = :s`
//! stores with TEXT affinity. That program is read through `EXPLAIN`
//! (prepared on the same guarded connection, never run as the statement
//! itself). Where the program says nothing or contradicts itself, the
//! parameter takes any scalar; these are schema hints only, the values are
//! bound as data whatever they are.

use std::collections::HashMap;

use rusqlite::types::ValueRef;
use serde_json::{Value, json};

use super::open::Conn;
use super::types::any_scalar_schema;

/// What the program does with a register, as an affinity letter of
/// SQLite's (`A` blob, `B` text, `C` numeric, `D` integer, `E` real).
type Hints = HashMap<i64, Vec<u8>>;

/// One instruction of the program: its opcode and operands.
struct Op {
    code: String,
    p1: i64,
    p2: i64,
    p3: i64,
    p4: Option<String>,
    p5: i64,
}

fn program(conn: &Conn, sql: &str) -> Option<Vec<Op>> {
    let mut statement = conn.connection.prepare(&format!("EXPLAIN {sql}")).ok()?;
    let mut rows = statement.raw_query();
    let mut ops = Vec::new();
    while let Some(row) = rows.next().ok()? {
        let int = |i: usize| row.get::<_, Option<i64>>(i).ok().flatten().unwrap_or(0);
        let p4 = match row.get_ref(5).ok()? {
            ValueRef::Text(t) => Some(String::from_utf8_lossy(t).into_owned()),
            _ => None,
        };
        ops.push(Op { code: row.get(1).ok()?, p1: int(2), p2: int(3), p3: int(4), p4, p5: int(6) });
    }
    Some(ops)
}

/// For each parameter (by index from 1), its SQL type and JSON Schema.
pub(super) fn infer(conn: &Conn, sql: &str, count: usize) -> Vec<(String, Value)> {
    let unknown = || (String::new(), any_scalar_schema());
    let Some(ops) = program(conn, sql) else { return (0..count).map(|_| unknown()).collect() };
    let mut register_of: HashMap<i64, i64> = HashMap::new();
    let mut hints = Hints::new();
    for op in &ops {
        let mut hint = |register: i64, affinity: u8| hints.entry(register).or_default().push(affinity);
        match op.code.as_str() {
            "Variable" => {
                register_of.insert(op.p1, op.p2);
            }
            "MustBeInt" => hint(op.p1, b'D'),
            "SeekRowid" | "NotExists" => hint(op.p3, b'D'),
            "RealAffinity" => hint(op.p1, b'E'),
            "Affinity" | "MakeRecord" => {
                // P4 holds one affinity letter per register from P1, P2 of them.
                let (first, n) = (op.p1, op.p2);
                for (i, letter) in op.p4.as_deref().unwrap_or("").bytes().take(n.max(0) as usize).enumerate()
                {
                    hint(first + i as i64, letter);
                }
            }
            "Eq" | "Ne" | "Lt" | "Le" | "Gt" | "Ge" => {
                // The low bits of P5 are the affinity applied to both sides.
                let affinity = (op.p5 & 0x47) as u8;
                hint(op.p1, affinity);
                hint(op.p3, affinity);
            }
            _ => {}
        }
    }
    (1..=count as i64)
        .map(|param| {
            let letters = register_of.get(&param).and_then(|r| hints.get(r));
            letters.and_then(|l| agreed(l)).map_or_else(unknown, typed)
        })
        .collect()
}

/// The one affinity all hints agree on (BLOB and none say nothing).
fn agreed(letters: &[u8]) -> Option<u8> {
    let mut telling = letters.iter().copied().filter(|l| matches!(l, b'B'..=b'E'));
    let first = telling.next()?;
    telling.all(|l| l == first).then_some(first)
}

fn typed(affinity: u8) -> (String, Value) {
    match affinity {
        b'D' => ("INTEGER".into(), json!({"type": ["integer", "null"]})),
        b'E' => ("REAL".into(), json!({"type": ["number", "null"]})),
        b'C' => ("NUMERIC".into(), json!({"type": ["number", "null"]})),
        _ => ("TEXT".into(), json!({"type": ["string", "null"]})),
    }
}
