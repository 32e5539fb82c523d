//! Medians and the Markdown table.

use std::fmt::Write as _;

use crate::Contender;

/// One server's medians.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    pub name: String,
    pub http_rps: f64,
    pub http_cpu_us: f64,
    /// The same `tools/call` at 2026-07-28 (per-request `_meta`, mirrored headers).
    pub http_2026_rps: f64,
    pub http_2026_cpu_us: f64,
    pub stdio_mps: f64,
    pub stdio_cpu_us: f64,
    /// One `resources/list` sweep over every page, milliseconds.
    pub list_ms: f64,
    /// Server CPU per sweep, milliseconds.
    pub list_cpu_ms: f64,
    /// Items one sweep saw.
    pub list_items: usize,
    pub cold_ms: f64,
    pub rss_mb: f64,
}

/// The median (mean of the middle two for an even count); 0 when empty.
pub(crate) fn median(mut values: Vec<f64>) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len() % 2 == 1 { values[mid] } else { (values[mid - 1] + values[mid]) / 2.0 }
}

/// `a ÷ b` as `1.23×`, or `–` when `b` is zero.
fn ratio(a: f64, b: f64) -> String {
    if b > 0.0 { format!("{:.2}×", a / b) } else { "–".into() }
}

/// The table: one row per server, then switchboard's ratios to each other server.
pub(crate) fn markdown(rows: &[Row], _contenders: &[Contender], connections: usize, window: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "| server | HTTP tools/call req/s, handshake revision (C={connections}) | CPU µs/req | HTTP tools/call req/s, 2026-07-28 | CPU µs/req | stdio msgs/s (W={window}) | CPU µs/msg | resources/list sweep ms (server CPU ms) | cold start ms | RSS after init MB |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|---|---|");
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {:.0} | {:.1} | {:.0} | {:.1} | {:.0} | {:.1} | {} | {:.2} | {:.1} |",
            r.name,
            r.http_rps,
            r.http_cpu_us,
            r.http_2026_rps,
            r.http_2026_cpu_us,
            r.stdio_mps,
            r.stdio_cpu_us,
            if r.list_items > 0 {
                format!("{:.1} ({:.1} CPU, {} items)", r.list_ms, r.list_cpu_ms, r.list_items)
            } else {
                "–".into()
            },
            r.cold_ms,
            r.rss_mb
        );
    }
    if let Some(switchboard) = rows.iter().find(|r| r.name == "switchboard") {
        let _ = writeln!(
            out,
            "\n| switchboard ÷ | HTTP req/s (handshake) | HTTP req/s (2026-07-28) | stdio msgs/s | list sweep time (lower is better) | cold start (lower is better) | RSS (lower is better) |"
        );
        let _ = writeln!(out, "|---|---|---|---|---|---|---|");
        for other in rows.iter().filter(|r| r.name != "switchboard") {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} |",
                other.name,
                ratio(switchboard.http_rps, other.http_rps),
                ratio(switchboard.http_2026_rps, other.http_2026_rps),
                ratio(switchboard.stdio_mps, other.stdio_mps),
                if switchboard.list_items > 0 && other.list_items > 0 {
                    ratio(switchboard.list_ms, other.list_ms)
                } else {
                    "–".into()
                },
                ratio(switchboard.cold_ms, other.cold_ms),
                ratio(switchboard.rss_mb, other.rss_mb)
            );
        }
    }
    out
}

/// One contender's `resources/list` walk medians.
#[derive(Debug, Clone)]
pub(crate) struct ListRow {
    pub name: String,
    /// Wall time of one sweep over every page, milliseconds.
    pub sweep_ms: f64,
    /// Server CPU per sweep, milliseconds.
    pub cpu_ms: f64,
    /// Items one sweep saw.
    pub items: usize,
}

/// The `list` subcommand's table: sweep time and server CPU per sweep and
/// per page, then switchboard's ratios to each other server.
pub(crate) fn list_markdown(rows: &[ListRow], page_size: usize) -> String {
    let mut out = String::new();
    let pages = |r: &ListRow| (r.items.div_ceil(page_size.max(1))).max(1) as f64;
    let _ = writeln!(out, "| server | sweep ms | server CPU ms per sweep | server CPU µs per page | items |");
    let _ = writeln!(out, "|---|---|---|---|---|");
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {:.1} | {:.2} | {:.1} | {} |",
            r.name,
            r.sweep_ms,
            r.cpu_ms,
            r.cpu_ms * 1e3 / pages(r),
            r.items
        );
    }
    if let Some(switchboard) = rows.iter().find(|r| r.name == "switchboard") {
        let _ = writeln!(
            out,
            "\n| other ÷ switchboard (higher: switchboard is faster) | sweep time | server CPU |"
        );
        let _ = writeln!(out, "|---|---|---|");
        for other in rows.iter().filter(|r| r.name != "switchboard") {
            let _ = writeln!(
                out,
                "| {} | {} | {} |",
                other.name,
                ratio(other.sweep_ms, switchboard.sweep_ms),
                ratio(other.cpu_ms, switchboard.cpu_ms)
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, rps: f64) -> Row {
        Row {
            name: name.into(),
            http_rps: rps,
            http_cpu_us: 10.0,
            http_2026_rps: rps * 0.8,
            http_2026_cpu_us: 12.0,
            stdio_mps: rps * 2.0,
            stdio_cpu_us: 4.0,
            list_ms: 20.0 * 50.0 / rps,
            list_cpu_ms: 2.0,
            list_items: if name == "none" { 0 } else { 10_000 },
            cold_ms: 5.0,
            rss_mb: 9.0,
        }
    }

    #[test]
    fn the_list_table_has_per_page_cpu_and_ratios() {
        let row = |name: &str, sweep_ms: f64, cpu_ms: f64| ListRow {
            name: name.into(),
            sweep_ms,
            cpu_ms,
            items: 10_000,
        };
        let table = list_markdown(&[row("switchboard", 10.0, 2.0), row("rmcp", 20.0, 5.0)], 100);
        assert!(table.contains("| switchboard | 10.0 | 2.00 | 20.0 | 10000 |"), "{table}");
        assert!(table.contains("| rmcp | 2.00× | 2.50× |"), "{table}");
    }

    #[test]
    fn medians() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(vec![]), 0.0);
    }

    #[test]
    fn the_table_has_a_row_per_server_and_ratios_against_switchboard() {
        let table = markdown(
            &[row("ceiling", 100.0), row("switchboard", 50.0), row("rmcp", 25.0), row("none", 10.0)],
            &[],
            16,
            64,
        );
        assert!(
            table.contains(
                "| ceiling | 100 | 10.0 | 80 | 12.0 | 200 | 4.0 | 10.0 (2.0 CPU, 10000 items) | 5.00 | 9.0 |"
            ),
            "{table}"
        );
        assert!(table.contains("| none | 10 | 10.0 | 8 | 12.0 | 20 | 4.0 | – | 5.00 | 9.0 |"), "{table}");
        assert!(
            table.contains(
                "| switchboard | 50 | 10.0 | 40 | 12.0 | 100 | 4.0 | 20.0 (2.0 CPU, 10000 items) | 5.00 | 9.0 |"
            ),
            "{table}"
        );
        assert!(table.contains("| ceiling | 0.50× | 0.50× | 0.50× | 2.00× | 1.00× | 1.00× |"), "{table}");
        assert!(table.contains("| none | 5.00× | 5.00× | 5.00× | – |"), "{table}");
        assert!(table.contains("| rmcp | 2.00× | 2.00× | 2.00× | 0.50× |"), "{table}");
    }
}
