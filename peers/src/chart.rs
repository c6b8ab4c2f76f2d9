//! The scaling chart: full-frame lookup throughput and build time against the number of
//! functions, for symblob and the peers, from the rows `lookups` and `builds` appended
//! to a TSV file, for the generated programs (`scale-N` labels) only. Log-log axes; one
//! line per tool.

use std::collections::BTreeMap;
use std::path::Path;

use plotters::prelude::*;

/// A line: tool name → points (functions, value).
type Lines = BTreeMap<String, Vec<(f64, f64)>>;

/// Reads the TSV and draws `out` (PNG, 1400×560).
pub fn draw(tsv: &Path, out: &Path) -> Result<(), String> {
    register_font()?;
    let text = std::fs::read_to_string(tsv).map_err(|e| format!("{}: {e}", tsv.display()))?;
    let mut lookups = Lines::new();
    let mut builds = Lines::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        // Only the generated programs: one family whose size alone varies.
        if !f.get(1).is_some_and(|label| label.starts_with("scale-")) {
            continue;
        }
        let functions: f64 = match f.get(2).and_then(|v| v.parse().ok()) {
            Some(n) if n > 0.0 => n,
            _ => continue,
        };
        match (f.first(), f.get(3), f.get(4), f.get(5)) {
            (Some(&"lookup"), Some(&"frames"), Some(tool), Some(rate)) => {
                if let Ok(rate) = rate.parse::<f64>() {
                    let entry = lookups.entry((*tool).to_owned()).or_default();
                    entry.push((functions, rate / 1e6));
                }
            }
            (Some(&"build"), Some(ext), Some(wall), _) if *ext != "ksym" => {
                if let Ok(wall) = wall.parse::<f64>() {
                    let entry = builds.entry(builder_name(ext).to_owned()).or_default();
                    entry.push((functions, wall));
                }
            }
            _ => {}
        }
    }
    for points in lookups.values_mut().chain(builds.values_mut()) {
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
    }

    let root = BitMapBackend::new(out, (1400, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let (left, right) = root.split_horizontally(700);
    panel(
        &left,
        "Full-frame lookups (function + inline chain + file:line)",
        "million lookups per second",
        &lookups,
        // Throughput falls with size: the lower left stays clear of the lines.
        SeriesLabelPosition::LowerLeft,
    )?;
    // Build time grows with size: the upper left stays clear.
    panel(
        &right,
        "DWARF → symbol file build",
        "wall seconds",
        &builds,
        SeriesLabelPosition::UpperLeft,
    )?;
    root.present()
        .map_err(|e| format!("{}: {e}", out.display()))
}

fn builder_name(ext: &str) -> &str {
    match ext {
        "lidia" => "symblob lidia build",
        "gsym" => "llvm-gsymutil --convert",
        "symcache" => "SymCacheConverter",
        "symblob.sym" => "symblob breakpad build",
        "dump_syms.sym" => "dump_syms --inlines",
        other => other,
    }
}

fn panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
    y_label: &str,
    lines: &Lines,
    legend: SeriesLabelPosition,
) -> Result<(), String> {
    let all = lines.values().flatten();
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, 0.0f64, f64::MAX, 0.0f64);
    for &(x, y) in all {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if x1 <= 0.0 || y1 <= 0.0 {
        return Ok(());
    }
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(
            (x0 * 0.8..x1 * 1.25).log_scale(),
            (y0 * 0.5..y1 * 2.0).log_scale(),
        )
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc("functions in the generated C program (gcc -O2 -g)")
        .x_labels(4)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_desc(y_label)
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(|e| e.to_string())?;
    for (i, (tool, points)) in lines.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let width = if tool.starts_with("symblob") { 3 } else { 1 };
        chart
            .draw_series(LineSeries::new(
                points.iter().copied(),
                color.stroke_width(width),
            ))
            .map_err(|e| e.to_string())?
            .label(tool.clone())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(width))
            });
        chart
            .draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))
            .map_err(|e| e.to_string())?;
    }
    chart
        .configure_series_labels()
        .position(legend)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .draw()
        .map_err(|e| e.to_string())
}

/// plotters' `ab_glyph` text needs a registered TrueType font: DejaVu Sans, which the
/// Debian `fonts-dejavu-core` package installs, or the file `SYMBLOB_CHART_FONT` names.
fn register_font() -> Result<(), String> {
    let path = std::env::var("SYMBLOB_CHART_FONT")
        .unwrap_or_else(|_| "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf".to_owned());
    let bytes = std::fs::read(&path).map_err(|e| format!("font {path}: {e}"))?;
    let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
    plotters::style::register_font("sans-serif", FontStyle::Normal, bytes)
        .map_err(|_| format!("font {path}: not a usable TrueType font"))
}
