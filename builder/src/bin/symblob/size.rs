//! `symblob size`: SuperSize `.size` / `.sizediff` archives and size reports.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use symblob_build::output::refuse_same_file;
use symblob_build::pipeline::size::{archive_elf, ElfArchiveInput, STRIPPED_INPUT};
use symblob_build::size::json::Json;
use symblob_build::size::report::{self, Format};
use symblob_build::size::{self, diff, loader, writer, ArchiveOptions, SizeInfo};
use symblob_build::{Error, ErrorKind, Location, Result};

use crate::common::map_input;

/// SuperSize archives (Chromium's binary-size tool) and size reports.
#[derive(Subcommand)]
pub enum Command {
    /// Archive an ELF file as a SuperSize `.size` (what `supersize archive --elf-file ELF
    /// --no-map-file` writes).
    ///
    /// Section sizes are those of the shipped file, as SuperSize measures them: the file
    /// `eu-strip` would write (computed, no tool is run), or the binary given with
    /// --stripped. Names are SuperSize's (LLVM's demangling, return types, anonymous
    /// namespaces and clone suffixes removed); --rich-names keeps symblob's.
    Archive(ArchiveArgs),
    /// Diff two builds (each an ELF or a `.size`): write a `.sizediff` with -o, else print
    /// what grew and shrank.
    Diff(DiffArgs),
    /// Print sizes per section, the largest symbols and sizes per source directory and
    /// file of a `.size`, `.sizediff` or ELF file.
    Show(ShowArgs),
    /// Write a self-contained HTML page (no server, nothing fetched, the data inline) that
    /// shows a `.size`, `.sizediff` or ELF file as a tree by source path, with sizes and
    /// counts, a regular-expression filter and section checkboxes; a `.sizediff` with
    /// growth and shrinkage coloured.
    ///
    /// The URL hash keeps the view (`#expand=DIR&filter=REGEX&section=.text`), so a
    /// view can be shared by its link.
    Html(HtmlArgs),
}

/// Arguments of `size archive`.
#[derive(Args)]
pub struct ArchiveArgs {
    /// The unstripped ELF file.
    elf: PathBuf,
    /// Output `.size` file (`-` for standard output).
    #[arg(short = 'o', long = "output")]
    output: PathBuf,
    /// The shipped (stripped) copy of the ELF, whose section and file sizes are recorded.
    #[arg(long)]
    stripped: Option<PathBuf>,
    /// Record source paths relative to DIR (paths outside it become `$SYSTEM/<name>`)
    /// instead of Chromium's layout rules.
    #[arg(long, value_name = "DIR")]
    source_root: Option<String>,
    /// Flag source files under DIR as generated (implies rooted paths).
    #[arg(long, value_name = "DIR")]
    generated_dir: Option<String>,
    /// Build config entries (`git_revision`, `gn_args` (repeatable), `out_directory`,
    /// `title`, `url`).
    #[arg(long = "build-config", value_name = "KEY=VALUE")]
    build_config: Vec<String>,
    /// Keep symblob's richer names: return types, `(anonymous namespace)::` and clone
    /// suffixes kept (no clone or anonymous-namespace flags), lambdas as binutils spells
    /// them. By default names are SuperSize's (LLVM's demangling, cleaned up as its
    /// archive step does).
    #[arg(long)]
    rich_names: bool,
    /// Attribute each function to the file of its own DWARF declaration (headers for
    /// template and inline functions) instead of its compile unit. Not SuperSize's rule.
    #[arg(long)]
    decl_paths: bool,
    /// Attribute data symbols to the file declaring them (DWARF variables with a fixed
    /// address). Not SuperSize's rule.
    #[arg(long)]
    data_paths: bool,
    /// gzip level (0-9). SuperSize writes 9; the default 6 gives about the same size here
    /// in a third of the deflate time; 1 is a little faster for a file about 1.5 times as
    /// large. Readers see the same text either way.
    #[arg(long, default_value_t = writer::DEFAULT_GZIP_LEVEL, value_parser = clap::value_parser!(u32).range(0..=9))]
    gzip_level: u32,
}

/// Arguments of `size diff`.
#[derive(Args)]
pub struct DiffArgs {
    /// The earlier build (ELF or `.size`).
    before: PathBuf,
    /// The later build (ELF or `.size`).
    after: PathBuf,
    /// Write a `.sizediff` here (`-` for standard output) instead of printing a report;
    /// excludes --json and --csv, which format the report.
    #[arg(short = 'o', long = "output", conflicts_with_all = ["json", "csv"])]
    output: Option<PathBuf>,
    #[command(flatten)]
    format: FormatArgs,
}

/// Arguments of `size show`.
#[derive(Args)]
pub struct ShowArgs {
    /// A `.size`, `.sizediff` or ELF file.
    file: PathBuf,
    /// How many of the largest symbols to list.
    #[arg(long, default_value_t = 20)]
    top: usize,
    #[command(flatten)]
    format: FormatArgs,
}

/// Arguments of `size html`.
#[derive(Args)]
pub struct HtmlArgs {
    /// A `.size`, `.sizediff` or ELF file.
    file: PathBuf,
    /// The HTML file to write (`-` for standard output).
    #[arg(short = 'o', long = "output")]
    output: PathBuf,
    /// The page's title (default: the input's file name).
    #[arg(long)]
    title: Option<String>,
}

/// Output format flags.
#[derive(Args)]
pub struct FormatArgs {
    /// Comma-separated values.
    #[arg(long, conflicts_with = "json")]
    csv: bool,
    /// JSON (addresses as "0x…" strings).
    #[arg(long)]
    json: bool,
}

impl FormatArgs {
    fn format(&self) -> Format {
        if self.csv {
            Format::Csv
        } else if self.json {
            Format::Json
        } else {
            Format::Text
        }
    }
}

/// Runs a `size` subcommand.
pub fn run(command: Command) -> Result<()> {
    match command {
        Command::Archive(a) => archive(a),
        Command::Diff(d) => diff_command(d),
        Command::Show(s) => show(s),
        Command::Html(h) => html(h),
    }
}

fn mtime(path: &Path) -> Option<i64> {
    let modified = std::fs::metadata(path).ok()?.modified().ok()?;
    match modified.duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_secs()).ok(),
        Err(e) => i64::try_from(e.duration().as_secs_f64().ceil() as u64)
            .ok()
            .map(|s| -s),
    }
}

fn archive_path(
    path: &Path,
    options: &ArchiveOptions,
    stripped: Option<&Path>,
) -> Result<SizeInfo> {
    let data = map_input(path)?;
    let stripped_data = stripped.map(map_input).transpose()?;
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    let input = ElfArchiveInput {
        data: &data,
        file_name,
        mtime: mtime(path),
        stripped: stripped_data.as_deref(),
    };
    archive_elf(&input, options).map_err(|e| {
        let about = match stripped {
            Some(copy) if e.input() == Some(Path::new(STRIPPED_INPUT)) => copy,
            _ => path,
        };
        e.with_input(about.display().to_string())
    })
}

fn build_config(entries: &[String]) -> Result<BTreeMap<String, Json>> {
    let mut out = BTreeMap::new();
    let mut gn_args = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let (key, value) = entry.split_once('=').ok_or_else(|| {
            Error::new(
                ErrorKind::InvalidArgument,
                "--build-config",
                Location::Index(i as u64 + 1),
                format!("{entry:?} is not KEY=VALUE"),
            )
        })?;
        match key {
            "gn_args" => gn_args.push(Json::Str(value.to_string())),
            "git_revision" | "out_directory" | "title" | "url" => {
                out.insert(key.to_string(), Json::Str(value.to_string()));
            }
            _ => {
                return Err(Error::new(
                    ErrorKind::InvalidArgument,
                    "--build-config",
                    Location::Index(i as u64 + 1),
                    format!(
                        "unknown key {key:?} (git_revision, gn_args, out_directory, title, url)"
                    ),
                ))
            }
        }
    }
    if !gn_args.is_empty() {
        out.insert("gn_args".into(), Json::List(gn_args));
    }
    Ok(out)
}

fn archive(a: ArchiveArgs) -> Result<()> {
    let mut inputs = vec![a.elf.as_path()];
    inputs.extend(a.stripped.as_deref());
    refuse_same_file(&a.output, &inputs)?;
    let options = ArchiveOptions {
        source_root: a.source_root,
        generated_dir: a.generated_dir,
        build_config: build_config(&a.build_config)?,
        rich_names: a.rich_names,
        decl_paths: a.decl_paths,
        data_paths: a.data_paths,
    };
    let info = archive_path(&a.elf, &options, a.stripped.as_deref())?;
    write_output(&a.output, &writer::size_file_level(&info, a.gzip_level))
}

/// An ELF is archived with default options; anything else is loaded.
fn load_any(path: &Path) -> Result<(SizeInfo, Option<SizeInfo>)> {
    let data = map_input(path)?;
    if loader::looks_like_size_file(&data) {
        return match loader::load(&data, &path.display().to_string())? {
            loader::Loaded::Size { info, .. } => Ok((info, None)),
            loader::Loaded::Diff { before, after } => Ok((before, Some(after))),
        };
    }
    drop(data);
    Ok((archive_path(path, &ArchiveOptions::default(), None)?, None))
}

fn load_side(path: &Path) -> Result<SizeInfo> {
    match load_any(path)? {
        (info, None) => Ok(info),
        (_, Some(_)) => Err(Error::new(
            ErrorKind::InvalidArgument,
            path,
            Location::Whole,
            "a .sizediff cannot be one side of a diff",
        )),
    }
}

fn diff_command(d: DiffArgs) -> Result<()> {
    let before = load_side(&d.before)?;
    let after = load_side(&d.after)?;
    let delta = diff::diff(&before, &after);
    match &d.output {
        Some(out) => {
            refuse_same_file(out, &[&d.before, &d.after])?;
            let (b, a) = diff::sparse_halves(&before, &after, &delta);
            write_output(out, &writer::sizediff_file(&b, &a))
        }
        None => print(&report::diff(&before, &after, &delta, d.format.format())),
    }
}

fn show(s: ShowArgs) -> Result<()> {
    let text = match load_any(&s.file)? {
        (info, None) => report::show(&info, s.top, s.format.format()),
        (before, Some(after)) => {
            let delta = diff::diff(&before, &after);
            report::diff(&before, &after, &delta, s.format.format())
        }
    };
    print(&text)
}

fn html(h: HtmlArgs) -> Result<()> {
    refuse_same_file(&h.output, &[&h.file])?;
    let title = h.title.unwrap_or_else(|| {
        h.file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| h.file.display().to_string())
    });
    let page = match load_any(&h.file)? {
        (info, None) => size::html::size_page(&info, &title),
        (before, Some(after)) => size::html::diff_page(&before, &after, &title),
    };
    write_output(&h.output, page.as_bytes())
}

fn print(text: &str) -> Result<()> {
    print_bytes(text.as_bytes())
}

/// Writes `bytes` to `path` by the shared output rules (`-` is standard output).
fn write_output(path: &Path, bytes: &[u8]) -> Result<()> {
    symblob_build::output::write_atomic(path, bytes)
}

/// Writes to standard output; a closed pipe ends quietly.
fn print_bytes(bytes: &[u8]) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Error::io("<stdout>", e)),
        _ => Ok(()),
    }
}
