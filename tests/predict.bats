#!/usr/bin/env bats
# common/predict.py (predictions.md beside the measurements), common/load.py
# (how busy the machine was) and table.py's --gcd and /COL, on small inputs.

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	printf 'experiment,k,wall_s,passes,run_unit_lines\na,1,2.0,4,4096\na,1,6.0,2,2048\nb,1,1.0,1,\n' >t.csv
}

# predictions_form FILE: a section per lab of the kit, each with 3 lines or
# more 'PN.M what:' (no colon in what), then nothing or the student's
# prediction (which may hold a colon).
predictions_form() {
	local n form='^- P[0-9]\.[0-9]+ [^:]+:( .*)?$'
	for n in $(cd "$ROOT" && ls -d labs/[0-9]-* | sed 's|labs/\([0-9]\).*|\1|'); do
		grep -q "^## Lab $n\$" "$1" || { echo "$1: no section '## Lab $n'"; return 1; }
		[ "$(awk -v h="## Lab $n" '$0 == h { on = 1; next } /^## / { on = 0 } on && /^- P/' "$1" |
			grep -cE "^- P$n\.")" -ge 3 ] || { echo "$1: Lab $n has fewer than 3 predictions"; return 1; }
	done
	[ -z "$(grep '^- P' "$1" | grep -vE "$form")" ] || { grep '^- P' "$1" | grep -vE "$form"; return 1; }
}

@test "predictions.md: a section per lab, each line 'PN.M what:', empty or predicted" {
	predictions_form "$ROOT/predictions.md"
	# a line whose 'what' lost its colon is not a prediction line
	sed '0,/^- P1\.1 /s/:$//' "$ROOT/predictions.md" >broken.md
	run predictions_form broken.md
	[ "$status" -eq 1 ] && [[ $output == "- P1.1 "* ]]
}

@test "predictions.md filled as the handout asks (every line, colons too) passes, and predict.py takes each one" {
	# every prediction written, one of them with a colon of its own
	sed -E 's/^(- P([0-9]+\.[0-9]+) [^:]+:)$/\1 my guess for \2/; s/^(- P1\.1 [^:]+:).*/\1 2048: half the buffer/' \
		"$ROOT/predictions.md" >filled.md
	[ -z "$(grep -E '^- P[0-9.]+ [^:]+:$' filled.md)" ]
	predictions_form filled.md
	for n in $(cd "$ROOT" && ls -d labs/[0-9]-* | sed 's|labs/\([0-9]\).*|\1|'); do
		run python3 "$ROOT/common/predict.py" remind filled.md "$n"
		[ "$status" -eq 0 ] && [ -z "$output" ]
	done
	run python3 "$ROOT/common/predict.py" show filled.md 2 "P2.1=1.5 s"
	[ "$status" -eq 0 ]
	[[ ${lines[1]} == "  P2.1 "*"predicted: my guess for 2.1; measured: 1.5 s" ]]
	run python3 "$ROOT/common/predict.py" show filled.md 1 "P1.1=4096 lines"
	[[ ${lines[1]} == "  P1.1 "*"predicted: 2048: half the buffer; measured: 4096 lines" ]]
}

@test "predict.py: reminds when a lab's predictions are empty, and says nothing once written" {
	printf '## Lab 1\n- P1.1 run unit, in lines:\n- P1.2 time, in s:\n' >p.md
	run python3 "$ROOT/common/predict.py" remind p.md 1
	[ "$status" -eq 0 ]
	[[ $output == "Predict first: write Lab 1's predictions in p.md"*"(It runs anyway.)" ]]
	printf '## Lab 1\n- P1.1 run unit, in lines: 4096\n- P1.2 time, in s:\n' >p.md
	run python3 "$ROOT/common/predict.py" remind p.md 1
	[ "$status" -eq 0 ] && [ -z "$output" ]
	# no file at all: a reminder, not an error
	run python3 "$ROOT/common/predict.py" remind none.md 2
	[ "$status" -eq 0 ] && [[ $output == "Predict first: "* ]]
}

@test "predict.py: shows each prediction beside its measurement, only the lab's own" {
	printf '## Lab 1\n- P1.1 run unit, in lines: about 4096: a buffer\n- P1.2 time, in s:\n## Lab 2\n- P2.1 other: 7\n' >p.md
	run python3 "$ROOT/common/predict.py" show p.md 1 "P1.1=2048 lines" "P1.2=0.5 s"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "== Your predictions (p.md, Lab 1) beside the measurements" ]
	[ "${lines[1]}" = "  P1.1 run unit, in lines  predicted: about 4096: a buffer; measured: 2048 lines" ]
	[ "${lines[2]}" = "  P1.2 time, in s          predicted: (none); measured: 0.5 s" ]
	[ "${#lines[@]}" -eq 3 ]
}

@test "predict.py: median and gcd of the matching rows; '-' when none; usage errors exit 2" {
	[ "$(python3 "$ROOT/common/predict.py" median t.csv wall_s experiment=a)" = 4 ]
	[ "$(python3 "$ROOT/common/predict.py" gcd t.csv run_unit_lines experiment=a,b)" = 2048 ]
	[ "$(python3 "$ROOT/common/predict.py" median t.csv wall_s experiment=c)" = - ]
	run python3 "$ROOT/common/predict.py" mean t.csv wall_s
	[ "$status" -eq 2 ] && [[ $output == "usage: predict.py "* ]]
	run python3 "$ROOT/common/predict.py" median none.csv wall_s
	[ "$status" -eq 1 ] && [ "$output" = "predict.py: none.csv: No such file or directory" ]
}

@test "table.py: --gcd over a group's rows (empty cells left out), and a value over a column" {
	run python3 "$ROOT/common/table.py" t.csv --by experiment --values wall_s/passes --gcd run_unit_lines
	[ "$status" -eq 0 ]
	[[ ${lines[1]} =~ ^\ +experiment\ +n\ +wall_s/passes\ +gcd\(run_unit_lines\)$ ]]
	[[ ${lines[2]} =~ ^\ +a\ +2\ +1\.75\ \(0\.5-3\)\ +2048$ ]]
	[[ ${lines[3]} =~ ^\ +b\ +1\ +1\ +-$ ]]
	run python3 "$ROOT/common/table.py" t.csv --by experiment --values wall_s --gcd run_unit_lines --csv
	[ "${lines[0]}" = "experiment,n,wall_s_median,wall_s_min,wall_s_max,run_unit_lines_gcd" ]
	[ "${lines[2]}" = "b,1,1,1,1," ]
}

@test "load.py: other programs' CPU, steal, load and the spread; a verdict and a key: value file" {
	python3 "$ROOT/common/load.py" start state $$
	# a busy child of this shell, waited for: the lab's own CPU, not others'
	timeout 0.3 sh -c 'while :; do :; done' || true
	run python3 "$ROOT/common/load.py" end state $$ "Lab 9" out.txt --spread "t.csv:experiment:wall_s"
	[ "$status" -eq 0 ]
	[[ ${lines[0]} =~ ^==\ The\ machine\ while\ Lab\ 9\ ran\ \([0-9]+\ s,\ [0-9]+\ cores\):\ other\ programs\ used\ [0-9.]+\ cores\ \(the\ kernel\'s\ threads\ [0-9.]+\ more,\ mostly\ the\ lab\'s\ own\ I/O\)\;\ steal\ ([0-9.]+%|none)\;\ load\ average ]]
	[ "${lines[1]}" = "   trials of one setting differ by up to 3.00x in wall_s (a; a trial takes 4 s)" ]
	[[ $output == *"NOISY: trials of one setting differ by more than 2x"*"TRIALS=10 make lab9"* ]]
	for key in seconds cores other_programs_cores kernel_threads_cores steal_percent load_average_start \
		load_average_end spread_wall_s busy_cause verdict; do
		grep -q "^$key: ." out.txt
	done
	grep -Eq '^verdict: (busy )?noisy$' out.txt
	[ ! -e out.txt.tmp ]
	# trials of a few ms that differ (b), beside longer ones that agree (c):
	# SHORT TRIALS, not NOISY, each line saying how long a trial takes
	printf 'experiment,mib_s,wall_s\nb,10,0.004\nb,30,0.005\nc,10,0.2\nc,15,0.3\n' >short.csv
	run python3 "$ROOT/common/load.py" end state $$ "Lab 9" out.txt --spread "short.csv:experiment:mib_s"
	[ "${lines[1]}" = "   trials of one setting differ by up to 3.00x in mib_s (b; a trial takes 4.5 ms, a few time slices of another program)" ]
	[ "${lines[2]}" = "   of those whose trials take 10 ms or more, by up to 1.50x in mib_s (c; a trial takes 250 ms)" ]
	[[ $output == *"SHORT TRIALS: only settings whose trials take under 10 ms differ by more than 2x"* ]]
	[[ $output != *NOISY* ]]
	grep -Eq '^verdict: (busy )?short$' out.txt
	# the same with c's trials 3x apart too: NOISY
	printf 'c,30,0.3\n' >>short.csv
	run python3 "$ROOT/common/load.py" end state $$ "Lab 9" out.txt --spread "short.csv:experiment:mib_s"
	[[ $output == *NOISY* && $output != *"SHORT TRIALS"* ]]
	grep -Eq '^verdict: (busy )?noisy$' out.txt
}

@test "load.py: the verdict tells steal (another tenant: add trials) from other programs (close them)" {
	# /proc/stat-like samples 10 s apart on 2 cores (HZ jiffies a second):
	# user nice system idle iowait irq softirq steal
	run python3 - "$ROOT/common" <<-'PY'
	import os, sys
	sys.path.insert(0, sys.argv[1])
	import load
	hz = os.sysconf("SC_CLK_TCK")
	def sample(name, *f):
	    with open(name, "w") as out:
	        print("cpu ", *(x * hz // 100 for x in f), file=out)
	        print("cpu0 1 2 3", file=out)
	    return load.cpu_jiffies(name)
	start = sample("s0", 1000, 0, 500, 9000, 0, 0, 0, 100)
	# the lab's own 800 jiffies-at-100Hz; steal 120 of 2000: 6%
	stolen = sample("s1", 1800, 0, 500, 10080, 0, 0, 0, 220)
	# others 700 beyond the lab's: 0.7 cores; steal 0
	others = sample("s2", 2500, 0, 500, 9600, 0, 0, 0, 100)
	both = sample("s3", 2500, 0, 500, 9380, 0, 0, 0, 220)
	for end in (stolen, others, both):
	    o, s = load.shares(start, end, 800 * hz // 100, 10.0)
	    print(f"{o:.2f} {round(s, 3)}")
	    print("\n".join(load.busy_lines(o, s, "lab9")))
	# a kernel that does not count steal (before 2.6.11): 7 fields
	old = [sample(f"o{i}", 1000, 0, 500, idle, 0, 0, 0) for i, idle in ((0, 9000), (1, 10000))]
	o, s = load.shares(old[0], old[1], 0, 10.0)
	print(f"{o:.2f} {s}", load.busy_lines(o, s, "lab9"))
	PY
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	[ "${lines[0]}" = "0.00 0.06" ]
	[ "${lines[1]}" = "   BUSY (steal): another tenant of this virtual machine's host took 6.0% of the CPU: add trials (TRIALS=10 make lab9) or run at a quieter hour." ]
	[ "${lines[2]}" = "0.70 0.0" ]
	[ "${lines[3]}" = "   BUSY: other programs on this machine used 0.70 cores: close them (\`top\` names them) and re-run, or add trials (TRIALS=10 make lab9)." ]
	[ "${lines[4]}" = "0.70 0.06" ]
	[[ ${lines[5]} == "   BUSY: other programs"* && ${lines[6]} == "   BUSY (steal):"* ]]
	[ "${lines[7]}" = "0.00 None []" ]
}

@test "load.py: the kernel's threads (PF_KTHREAD) are counted apart, a reused pid from 0" {
	# a /proc of three processes: two kernel threads and a program
	# stat LINE: fields 3.. after "(name)": state ppid ... flags at field 9,
	# utime 14, stime 15, start time 22
	stat() { mkdir -p "proc/$1" && printf '%s (%s) S 2 0 0 0 -1 %s 0 0 0 0 %s %s 0 0 20 0 1 0 %s 0 0\n' \
		"$1" "$2" "$3" "$4" "$5" "$6" >"proc/$1/stat"; }
	stat 10 "kworker/0:1-events" 69238880 100 50 7
	stat 11 "a (tricky) name" 4194560 900 900 8
	stat 12 "jbd2/vda1-8" 2129984 30 0 9
	mkdir proc/self
	run python3 - "$ROOT/common" <<-'PY'
	import sys
	sys.path.insert(0, sys.argv[1])
	import load
	before = load.kernel_threads("proc")
	print(sorted(before.items()))
	# later: 10 used 20 more jiffies, 12 is gone, 13 is new (5), and pid 11's
	# number now belongs to a kernel thread started later (4)
	after = {"10": (7, 170), "13": (12, 5), "11": (15, 4)}
	print(load.kernel_jiffies(before, after))
	PY
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	[ "${lines[0]}" = "[('10', (7, 150)), ('12', (9, 30))]" ]
	[ "${lines[1]}" = 29 ]
}

@test "load.py --needs-cores: a busy run names the questions whose lesson needs the cores, a quiet one does not" {
	# STATE as 'start' writes it, its CPU readings moved so that the
	# machine looks busy (other programs: 20 s of CPU in the last 10 s) or
	# quiet (none, and steal a vanishing share of a huge total)
	state() {
		python3 - "$ROOT/common" "$1" $$ >"$2" <<-'PY'
		import os, sys, time
		sys.path.insert(0, sys.argv[1])
		import load
		busy, steal, total = load.cpu_jiffies()
		others = 20 * load.HZ if sys.argv[2] == "busy" else -10 ** 9
		print(busy - others, steal if steal is not None else -1, total - 10 ** 12, 1.0,
		      time.monotonic() - 10, load.own_jiffies(sys.argv[3]))
		print(" ".join(f"{p}:{started}:{j}" for p, (started, j) in load.kernel_threads().items()))
		PY
	}
	state busy busy.state
	run python3 "$ROOT/common/load.py" end busy.state $$ "Lab 9" out.txt --needs-cores Q9.2,Q9.5 --spread "t.csv:experiment:wall_s"
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	[[ $output == *"   BUSY: other programs on this machine used "* ]]
	[[ $output == *"   Q9.2 and Q9.5 need the cores for the lab alone, which it did not have: this run's data may show the opposite of what they expect. Say so in your answer, quoting these lines, or re-run when the machine is idle."* ]]
	grep -qx 'busy_questions: Q9.2 Q9.5' out.txt
	grep -qx 'busy_cause: programs' out.txt
	state quiet quiet.state
	run python3 "$ROOT/common/load.py" end quiet.state $$ "Lab 9" out.txt --needs-cores Q9.2 --spread "t.csv:experiment:wall_s"
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	[[ $output != *BUSY* && $output != *Q9.2* ]]
	grep -qx 'busy_questions: none' out.txt
	# each lab's --needs-cores names questions of its own page, which tell
	# the student what to say when the machine was busy
	for script in "$ROOT"/labs/*/lab*.sh; do
		page=$(dirname "$script")/README.md
		for q in $(grep -o -- '--needs-cores [Q0-9.,]*' "$script" | cut -d' ' -f2 | tr , ' '); do
			text=$(awk -v q="- **$q " 'index($0, q) == 1 { on = 1 } on && /^- \*\*Q/ && index($0, q) != 1 { on = 0 } on' "$page")
			[ -n "$text" ] || { echo "$script: $q is not a question of $page"; return 1; }
			[[ $(tr -s ' \n' '  ' <<<"$text") == *"closing lines"* ]] || { echo "$page: $q does not point at the lab's closing lines"; return 1; }
		done
	done
}
