//! The standard `process_*` series of the Prometheus client libraries (CPU time, memory,
//! open files, start time), read from `/proc/self` when `/metrics` is scraped and written
//! after the service's own series. Elsewhere than on Linux nothing is written.

use std::fmt::Write as _;

/// Clock ticks per second of `/proc/self/stat`'s times: `USER_HZ`, which Linux fixes at
/// 100 for every architecture it is built for in practice (it is not the kernel's `HZ`).
const TICKS_PER_SECOND: f64 = 100.0;

/// Appends the `process_*` series to `page` (each with its `# HELP` and `# TYPE`), those
/// that could be read.
pub fn render(page: &mut String) {
    let Some(figures) = Figures::read() else {
        return;
    };
    let mut series = |name: &str, kind: &str, help: &str, value: Option<f64>| {
        if let Some(value) = value {
            let _ = write!(
                page,
                "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {value}\n\n"
            );
        }
    };
    series(
        "process_cpu_seconds_total",
        "counter",
        "Total user and system CPU time spent in seconds.",
        Some(figures.cpu_seconds),
    );
    series(
        "process_resident_memory_bytes",
        "gauge",
        "Resident memory size in bytes.",
        figures.resident_bytes,
    );
    series(
        "process_virtual_memory_bytes",
        "gauge",
        "Virtual memory size in bytes.",
        Some(figures.virtual_bytes),
    );
    series(
        "process_open_fds",
        "gauge",
        "Number of open file descriptors.",
        figures.open_fds,
    );
    series(
        "process_max_fds",
        "gauge",
        "Maximum number of open file descriptors.",
        figures.max_fds,
    );
    series(
        "process_start_time_seconds",
        "gauge",
        "Start time of the process since the Unix epoch in seconds.",
        figures.start_time,
    );
}

/// What `/proc` says of this process now.
struct Figures {
    cpu_seconds: f64,
    virtual_bytes: f64,
    resident_bytes: Option<f64>,
    open_fds: Option<f64>,
    max_fds: Option<f64>,
    start_time: Option<f64>,
}

impl Figures {
    /// The figures, or `None` without a readable `/proc/self/stat` (not Linux).
    fn read() -> Option<Figures> {
        let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
        // The command name (field 2) is in parentheses and may hold spaces: the fields
        // are counted from the last `)`, field 3 first.
        let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
        let field = |n: usize| fields.get(n - 3).and_then(|f| f.parse::<f64>().ok());
        let cpu_seconds = (field(14)? + field(15)?) / TICKS_PER_SECOND;
        let virtual_bytes = field(23)?;
        let start_time = field(22).and_then(|ticks| Some(boot_time()? + ticks / TICKS_PER_SECOND));
        Some(Figures {
            cpu_seconds,
            virtual_bytes,
            resident_bytes: resident_bytes(),
            open_fds: std::fs::read_dir("/proc/self/fd")
                .ok()
                .map(|entries| entries.count() as f64),
            max_fds: max_fds(),
            start_time,
        })
    }
}

/// The resident set, from `VmRSS:` (kB) in `/proc/self/status`.
fn resident_bytes() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024.0)
}

/// The soft limit of open files, from `/proc/self/limits`.
fn max_fds() -> Option<f64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line.strip_prefix("Max open files")?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// When the host booted (Unix seconds), from `btime` in `/proc/stat`.
fn boot_time() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    stat.lines()
        .find_map(|l| l.strip_prefix("btime "))?
        .trim()
        .parse()
        .ok()
}
