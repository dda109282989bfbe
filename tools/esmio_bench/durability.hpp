// Making written data durable, and knowing where a file's pages are: the two things that
// separate a disk rate from a page-cache rate.
#pragma once

#include <string>

namespace esmio_bench {

// fsync of a file (opened read-only: Linux flushes the inode's dirty pages whoever wrote them).
// Returns false with errno set on failure.
bool fsync_file(const std::string &path);
// fsync of the directory holding path, so that a newly created file's entry is durable too.
bool fsync_parent_dir(const std::string &path);
// Drops the file's pages from the page cache: fsync (dirty pages cannot be dropped) and
// posix_fadvise(POSIX_FADV_DONTNEED).
bool drop_from_cache(const std::string &path);
// Fraction of the file's pages resident in the page cache (mmap + mincore); -1 on failure.
double resident_fraction(const std::string &path);
// Reads the whole file once (to make a warm read warm). Returns the bytes read.
long long read_through(const std::string &path);
// Size of the file on disk in bytes (allocated blocks), and its length; -1 if missing.
long long file_disk_bytes(const std::string &path);
long long file_length(const std::string &path);

}  // namespace esmio_bench
