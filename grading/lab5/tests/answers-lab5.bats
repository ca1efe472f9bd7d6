#!/usr/bin/env bats
# Lab 5's reference answers (grading/lab5/answers.md) quote measurements,
# an example from one run on a named machine that a student's data will not
# match: held to that run (grading/lab5/reference-run/), as the lab's
# closing tables print it, so that the two cannot drift apart.

load ../../../tests/helpers
load ../../tests/answers

@test "answers-lab5: Lab 5 quotes the medians of its reference run, as the closing tables print them" {
	quoted <<-'PY'
	d = "lab5-depth.csv"
	want = {
"Q5.1": [f"1 MiB: {med(5, 'lab5.csv', 'bytes_per_ns', experiment='read-size', series='cached', io_bytes=1048576)} bytes/ns"],
	        "Q5.2": [f"{med(5, 'lab5.csv', 'bytes_per_ns', experiment='read-size', series='cached', io_bytes=b)} / "
	                        f"{med(5, 'lab5.csv', 'bytes_per_ns', experiment='read-size', series='direct', io_bytes=b)}" for b in (4096, 4194304)]
	        + [f"{med(5, 'lab5.csv', 'lat_p50_us', experiment='read-size', series='cached', io_bytes=b)} us" for b in (4096, 4194304)],
	        "Q5.4": [f"cached {med(5, 'lab5.csv', 'bytes_per_ns', experiment='write-size', series='cached', io_bytes=4096)} bytes/ns",
	                        f"fsync-end {med(5, 'lab5.csv', 'bytes_per_ns', experiment='write-size', series='fsync-end', io_bytes=4096)}",
	                        f"fsync-each {med(5, 'lab5.csv', 'bytes_per_ns', experiment='write-size', series='fsync-each', io_bytes=4096)}"],
	        "Q5.6": [f"{med(5, 'lab5.csv', 'bytes_per_ns', experiment='read-size', series='direct', io_bytes=b)} / "
	                        f"{med(5, 'lab5.csv', 'bytes_per_ns', experiment='random-read', series='direct', io_bytes=b)}" for b in (4096, 1048576)],
	        "Q5.10": [f"depth {q} {med(5, d, 'iops', experiment='depth', iodepth=q)} IOPS, p50 {med(5, d, 'lat_p50_us', experiment='depth', iodepth=q)} us"
	                         for q in (1, 8, 32, 64)],
	        "Q5.11": [", ".join(med(5, d, "iops", experiment="threads", jobs=j) for j in (2, 4)) + " and " + med(5, d, "iops", experiment="threads", jobs=8),
	                         ", ".join(med(5, d, "iops", experiment="depth", iodepth=q) for q in (2, 4)) + " and " + med(5, d, "iops", experiment="depth", iodepth=8)],
	        "Q5.12": [f"depth {q}: {med(5, d, 'iops*lat_mean_us', experiment='depth', iodepth=q)}" for q in (1, 8, 32)]
	        + [f"4 threads: {med(5, d, 'iops*lat_mean_us', experiment='threads', jobs=4)}"]

	}
	missing(5, want)
	PY
}
