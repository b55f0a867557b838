//! A simulation's figures as SVG charts, written as text (no library, no script): Kendall's
//! τ by variant with its interval, the placement error and bias by true rank with their
//! intervals as bands, and the distribution of the final MMS. The same SVG is written to files
//! by the CLI and shown inline on the web page of a `simulate.*` run.

use std::fmt::Write as _;

use super::metrics::Interval;
use super::report::{Report, VariantReport};

/// Okabe–Ito's colour-blind-safe palette.
const COLOURS: &[&str] = &[
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000",
];

const W: f64 = 760.0;
const H: f64 = 420.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 200.0;
const TOP: f64 = 44.0;
const BOTTOM: f64 = 52.0;

/// Text safe inside an SVG element or attribute.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

fn colour(k: usize) -> &'static str {
    COLOURS[k % COLOURS.len()]
}

/// Round tick values covering lo … hi.
fn ticks(lo: f64, hi: f64, want: usize) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite()) || hi <= lo {
        return vec![lo];
    }
    let raw = (hi - lo) / want.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let first = (lo / step).ceil() * step;
    let mut out = Vec::new();
    let mut x = first;
    while x <= hi + step * 1e-9 && out.len() < 50 {
        out.push(if x.abs() < step * 1e-9 { 0.0 } else { x });
        x += step;
    }
    out
}

fn label(x: f64) -> String {
    let s = format!("{x:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.to_string() }
}

/// A plot area mapping data coordinates to the SVG's.
struct Frame {
    x0: f64,
    x1: f64,
    y0: f64,
    y1: f64,
}

impl Frame {
    fn px(&self, x: f64) -> f64 {
        LEFT + (x - self.x0) / (self.x1 - self.x0).max(f64::MIN_POSITIVE) * (W - LEFT - RIGHT)
    }
    fn py(&self, y: f64) -> f64 {
        H - BOTTOM - (y - self.y0) / (self.y1 - self.y0).max(f64::MIN_POSITIVE) * (H - TOP - BOTTOM)
    }
}

fn open(out: &mut String, title: &str, subtitle: &str) {
    let _ = write!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" width="{W}" height="{H}" font-family="sans-serif" font-size="12" role="img" aria-label="{t}"><title>{t}</title><rect width="{W}" height="{H}" fill="#ffffff"/><text x="{LEFT}" y="20" font-size="15" font-weight="bold">{t}</text><text x="{LEFT}" y="36" fill="#555555">{s}</text>"##,
        t = escape(title),
        s = escape(subtitle),
    );
}

fn axes(out: &mut String, f: &Frame, xs: &[f64], ys: &[f64], xlabel: &str, ylabel: &str) {
    for &y in ys {
        let p = f.py(y);
        let _ = write!(
            out,
            r##"<line x1="{LEFT}" y1="{p:.1}" x2="{:.1}" y2="{p:.1}" stroke="#e4e4e4"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
            W - RIGHT,
            LEFT - 6.0,
            p + 4.0,
            label(y)
        );
    }
    for &x in xs {
        let p = f.px(x);
        let _ = write!(
            out,
            r##"<line x1="{p:.1}" y1="{:.1}" x2="{p:.1}" y2="{:.1}" stroke="#999999"/><text x="{p:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
            H - BOTTOM,
            H - BOTTOM + 5.0,
            H - BOTTOM + 18.0,
            label(x)
        );
    }
    let _ = write!(
        out,
        r##"<line x1="{LEFT}" y1="{b:.1}" x2="{r:.1}" y2="{b:.1}" stroke="#333333"/><line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{b:.1}" stroke="#333333"/><text x="{cx:.1}" y="{:.1}" text-anchor="middle">{}</text><text transform="translate(16 {cy:.1}) rotate(-90)" text-anchor="middle">{}</text>"##,
        H - 12.0,
        escape(xlabel),
        escape(ylabel),
        b = H - BOTTOM,
        r = W - RIGHT,
        cx = (LEFT + W - RIGHT) / 2.0,
        cy = (TOP + H - BOTTOM) / 2.0,
    );
}

fn legend(out: &mut String, names: &[&str]) {
    for (k, n) in names.iter().enumerate() {
        let y = TOP + 8.0 + 18.0 * k as f64;
        let x = W - RIGHT + 16.0;
        let name: String = n.chars().take(24).collect();
        let _ = write!(
            out,
            r#"<rect x="{x:.1}" y="{:.1}" width="14" height="4" fill="{}"/><text x="{:.1}" y="{:.1}">{}</text>"#,
            y - 4.0,
            colour(k),
            x + 20.0,
            y + 2.0,
            escape(&name)
        );
    }
}

fn close(out: &mut String) {
    out.push_str("</svg>\n");
}

fn subtitle(r: &Report) -> String {
    format!(
        "{} runs, {} players, {} — 95 % confidence intervals",
        r.runs, r.players, r.model
    )
}

/// Kendall's τ of each variant, dot and interval, one row per variant.
pub fn tau_by_variant(r: &Report) -> String {
    let mut out = String::new();
    open(
        &mut out,
        "Kendall's τ between true strength and final placement",
        &subtitle(r),
    );
    let rows: Vec<(&VariantReport, Interval)> = r
        .variants
        .iter()
        .filter_map(|v| v.kendall_tau.map(|t| (v, t)))
        .collect();
    let lo = rows
        .iter()
        .map(|(_, t)| t.low)
        .fold(f64::INFINITY, f64::min);
    let hi = rows
        .iter()
        .map(|(_, t)| t.high)
        .fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = if lo.is_finite() && hi.is_finite() {
        let pad = ((hi - lo) * 0.15).max(0.01);
        ((lo - pad).max(-1.0), (hi + pad).min(1.0))
    } else {
        (0.0, 1.0)
    };
    let f = Frame {
        x0: lo,
        x1: hi,
        y0: 0.0,
        y1: rows.len().max(1) as f64,
    };
    axes(
        &mut out,
        &f,
        &ticks(lo, hi, 6),
        &[],
        "Kendall's τ (1 = placement in strength order)",
        "",
    );
    for (k, (v, t)) in rows.iter().enumerate() {
        let y = f.py(rows.len() as f64 - k as f64 - 0.5);
        let c = colour(k);
        let _ = write!(
            out,
            r#"<line x1="{:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{c}" stroke-width="3"/><line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{c}" stroke-width="2"/><line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{c}" stroke-width="2"/><circle cx="{:.1}" cy="{y:.1}" r="5" fill="{c}"><title>{}: {:.3} [{:.3}, {:.3}]</title></circle><text x="{:.1}" y="{:.1}" text-anchor="middle">{:.3}</text>"#,
            f.px(t.low),
            f.px(t.high),
            f.px(t.low),
            y - 6.0,
            f.px(t.low),
            y + 6.0,
            f.px(t.high),
            y - 6.0,
            f.px(t.high),
            y + 6.0,
            f.px(t.mean),
            escape(&v.name),
            t.mean,
            t.low,
            t.high,
            f.px(t.mean),
            y - 10.0,
            t.mean
        );
    }
    let names: Vec<&str> = rows.iter().map(|(v, _)| v.name.as_str()).collect();
    legend(&mut out, &names);
    close(&mut out);
    out
}

/// One line with a band per variant over true rank 1 … n.
fn by_rank(
    r: &Report,
    title: &str,
    ylabel: &str,
    series: impl Fn(&VariantReport) -> &[Interval],
    zero_line: bool,
) -> String {
    let mut out = String::new();
    open(&mut out, title, &subtitle(r));
    let n = r
        .variants
        .iter()
        .map(|v| series(v).len())
        .max()
        .unwrap_or(0);
    let finite = |x: f64| x.is_finite() && x.abs() < 1e12;
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in &r.variants {
        for i in series(v) {
            for y in [i.low, i.high, i.mean] {
                if finite(y) {
                    lo = lo.min(y);
                    hi = hi.max(y);
                }
            }
        }
    }
    if !(lo.is_finite() && hi.is_finite()) {
        (lo, hi) = (0.0, 1.0);
    }
    if zero_line {
        lo = lo.min(0.0);
        hi = hi.max(0.0);
    } else {
        lo = 0.0;
    }
    let pad = ((hi - lo) * 0.05).max(0.1);
    let f = Frame {
        x0: 1.0,
        x1: n.max(2) as f64,
        y0: if zero_line { lo - pad } else { lo },
        y1: hi + pad,
    };
    axes(
        &mut out,
        &f,
        &ticks(1.0, n.max(2) as f64, 8),
        &ticks(f.y0, f.y1, 6),
        "true rank (1 = strongest player)",
        ylabel,
    );
    if zero_line {
        let y = f.py(0.0);
        let _ = write!(
            out,
            r##"<line x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#333333" stroke-dasharray="4 3"/>"##,
            W - RIGHT
        );
    }
    let clip = |y: f64| y.clamp(f.y0, f.y1);
    for (k, v) in r.variants.iter().enumerate() {
        let s = series(v);
        if s.is_empty() {
            continue;
        }
        let c = colour(k);
        let mut band = String::new();
        for (i, iv) in s.iter().enumerate() {
            let _ = write!(
                band,
                "{:.1},{:.1} ",
                f.px((i + 1) as f64),
                f.py(clip(iv.high))
            );
        }
        for (i, iv) in s.iter().enumerate().rev() {
            let _ = write!(
                band,
                "{:.1},{:.1} ",
                f.px((i + 1) as f64),
                f.py(clip(iv.low))
            );
        }
        let mut line = String::new();
        for (i, iv) in s.iter().enumerate() {
            let _ = write!(
                line,
                "{:.1},{:.1} ",
                f.px((i + 1) as f64),
                f.py(clip(iv.mean))
            );
        }
        let _ = write!(
            out,
            r#"<polygon points="{}" fill="{c}" fill-opacity="0.18" stroke="none"/><polyline points="{}" fill="none" stroke="{c}" stroke-width="1.8"/>"#,
            band.trim_end(),
            line.trim_end()
        );
    }
    let names: Vec<&str> = r.variants.iter().map(|v| v.name.as_str()).collect();
    legend(&mut out, &names);
    close(&mut out);
    out
}

/// Mean |final position − true position| by true rank.
pub fn placement_error(r: &Report) -> String {
    by_rank(
        r,
        "Placement error by true rank",
        "mean |final place − true place|",
        |v| &v.abs_error_by_true_rank,
        false,
    )
}

/// Mean (final position − true position) by true rank: above 0, placed too low.
pub fn placement_bias(r: &Report) -> String {
    by_rank(
        r,
        "Placement bias by true rank (above 0: placed lower than strength)",
        "mean (final place − true place)",
        |v| &v.error_by_true_rank,
        true,
    )
}

/// The distribution of the final MMS, one line per variant.
pub fn final_mms(r: &Report) -> String {
    let mut out = String::new();
    open(
        &mut out,
        "Distribution of the final MMS",
        &format!(
            "{} runs, {} players, {}: share of all players' final MMS",
            r.runs, r.players, r.model
        ),
    );
    let all: Vec<f64> = r
        .variants
        .iter()
        .flat_map(|v| v.final_mms.iter().map(|m| m.mms))
        .collect();
    let lo = all.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = all.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = if lo.is_finite() && hi > lo {
        (lo, hi)
    } else if lo.is_finite() {
        (lo - 1.0, lo + 1.0)
    } else {
        (0.0, 1.0)
    };
    let top = r
        .variants
        .iter()
        .flat_map(|v| v.final_mms.iter().map(|m| m.share))
        .fold(0.0, f64::max)
        .max(0.01);
    let f = Frame {
        x0: lo,
        x1: hi,
        y0: 0.0,
        y1: top * 1.08,
    };
    axes(
        &mut out,
        &f,
        &ticks(lo, hi, 10),
        &ticks(0.0, top * 1.08, 5),
        "final MMS (points)",
        "share of players",
    );
    for (k, v) in r.variants.iter().enumerate() {
        let c = colour(k);
        let mut line = String::new();
        for m in &v.final_mms {
            let _ = write!(line, "{:.1},{:.1} ", f.px(m.mms), f.py(m.share));
        }
        let _ = write!(
            out,
            r#"<polyline points="{}" fill="none" stroke="{c}" stroke-width="1.8"/>"#,
            line.trim_end()
        );
        for m in &v.final_mms {
            let _ = write!(
                out,
                r#"<circle cx="{:.1}" cy="{:.1}" r="2.5" fill="{c}"/>"#,
                f.px(m.mms),
                f.py(m.share)
            );
        }
    }
    let names: Vec<&str> = r.variants.iter().map(|v| v.name.as_str()).collect();
    legend(&mut out, &names);
    close(&mut out);
    out
}

/// Every chart: file name and SVG text.
pub fn all(r: &Report) -> Vec<(&'static str, String)> {
    vec![
        ("tau.svg", tau_by_variant(r)),
        ("placement_error.svg", placement_error(r)),
        ("placement_bias.svg", placement_bias(r)),
        ("final_mms.svg", final_mms(r)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_cover_the_range() {
        let t = ticks(0.0, 1.0, 5);
        assert_eq!(t.len(), 6);
        assert!(
            t.iter()
                .zip([0.0, 0.2, 0.4, 0.6, 0.8, 1.0])
                .all(|(a, b)| (a - b).abs() < 1e-9)
        );
        let t = ticks(1.0, 200.0, 8);
        assert_eq!(t.first(), Some(&25.0));
        assert!(t.windows(2).all(|w| (w[1] - w[0] - 25.0).abs() < 1e-9));
        assert_eq!(ticks(1.0, 1.0, 5), vec![1.0]);
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(escape(r#"a<b & "c""#), "a&lt;b &amp; &quot;c&quot;");
        assert_eq!(label(0.30000000000000004), "0.3");
        assert_eq!(label(-0.0), "0");
    }
}
