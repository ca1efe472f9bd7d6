#!/usr/bin/env bats
# The dev container (.devcontainer/), for students on macOS or Windows: it
# builds from Debian's packages only, and README.md's two commands (make
# lab1, make test) run in it as its student, at the tests' sizes (SCALE=tiny,
# T=launch). Building needs a container runtime that starts (docker or
# podman) and Debian's mirror; elsewhere that test is skipped, saying why.
# An instructor's test: the starter carries .devcontainer/, not this file.

load ../../tests/helpers

# runtime: prints the container tool that answers, or (status 1) why none does.
runtime() {
	local tool out why=
	for tool in podman docker; do
		command -v "$tool" >/dev/null 2>&1 || continue
		if out=$("$tool" info 2>&1); then
			echo "$tool"
			return 0
		fi
		why="$tool is installed but cannot start a container ($tool info: $(grep -m 1 -iE 'error|cannot' <<<"$out" || tail -n 1 <<<"$out"))"
	done
	echo "${why:-no container runtime (docker or podman) on this machine}"
	return 1
}

@test "devcontainer: Debian's image and Debian's packages only; the student is not root; SCRATCH on a volume" {
	local dockerfile=$ROOT/.devcontainer/Dockerfile
	[ "$(grep -c '^FROM ' "$dockerfile")" -eq 1 ]
	grep -qx 'FROM debian:[a-z]*' "$dockerfile"
	# nothing fetched but by apt-get from Debian's mirror
	run grep -nE 'curl|wget|pip |npm|^ADD|https?://' "$dockerfile"
	[ "$status" -eq 1 ]
	grep -qx 'USER student' "$dockerfile"
	python3 - "$ROOT/.devcontainer/devcontainer.json" <<-'PY'
	import json, sys
	c = json.load(open(sys.argv[1]))
	assert c["build"]["dockerfile"] == "Dockerfile", c
	assert c["remoteUser"] == "student", c
	assert c["containerEnv"]["SCRATCH"] == "/scratch", c
	assert any("target=/scratch" in m and "type=volume" in m for m in c["mounts"]), c
	PY
	# the packages the kit's dependency list names for apt are in the image
	local tool
	for tool in gnuplot bats python3 liburing strace bwrap; do
		grep -qw -- "$(bash "$ROOT/common/deps.sh" --package apt "$tool")" "$dockerfile" ||
			{ echo "the Dockerfile does not install $tool" >&2; return 1; }
	done
}

@test "devcontainer: builds, and make lab1 and make test run in it as its student" {
	local tool
	tool=$(runtime) || skip "$tool"
	local image=iolab-devcontainer-test:$$
	run "$tool" build -q -t "$image" "$ROOT/.devcontainer"
	[ "$status" -eq 0 ] || { echo "$output" >&2; return 1; }
	# the kit's files, as a clone has them, read-only; the student works on a copy
	mkdir kit
	(cd "$ROOT" && git ls-files -z | tar --null -T - -cf -) | tar -xf - -C kit
	run "$tool" run --rm -v "$PWD/kit:/kit:ro" -v /scratch "$image" bash -c '
		cp -R /kit ~/iolab && cd ~/iolab &&
		make -s lab1 SCALE=tiny && make -s test T=launch && id -un && cat data/machine.txt'
	"$tool" rmi -f "$image" >/dev/null 2>&1 || true
	[ "$status" -eq 0 ] || { echo "$output" >&2; return 1; }
	[[ $output == *"== Lab 1"*"(SCALE=tiny, files in /scratch)"* ]]
	[[ $output =~ [0-9]+\ passed,\ 0\ failed ]]
	grep -qx student <<<"$output"
	grep -q '^scratch_dir_fs: [a-z0-9]' <<<"$output"
}
