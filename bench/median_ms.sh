# Sourced by the scripted benchmarks (not one itself: run-bench.sh runs
# bench_*.sh). median_json NAME: the millisecond figures on stdin, one a
# line, as the JSON line of a benchmark: {"name":..,"median_ms":..,...}.
median_json() {
	sort -n | awk -v name="$1" '
		{ v[NR] = $1 }
		END { printf "{\"name\":\"%s\",\"median_ms\":%d,\"min_ms\":%d,\"max_ms\":%d}\n",
			name, v[int((NR + 1) / 2)], v[1], v[NR] }'
}
