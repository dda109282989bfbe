// Peak resident memory of this process, per variant: the peak is reset before each variant
// runs (Linux /proc/self/clear_refs, value 5), so one variant's peak does not hide another's.
#pragma once

namespace esmio_bench {

// Resets the peak (VmHWM) to the current RSS. Returns false where the kernel refuses; the
// peak then is the process's peak so far (getrusage ru_maxrss), which only grows.
bool reset_peak_rss();
// Peak RSS in MiB since the last reset (VmHWM), or ru_maxrss if VmHWM cannot be read.
double peak_rss_mib();
// Current RSS in MiB (VmRSS): the bench's own buffers before a variant starts.
double current_rss_mib();

}  // namespace esmio_bench
