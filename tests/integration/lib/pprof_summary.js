// SPDX-License-Identifier: GPL-2.0-only
// Decodes a gzipped pprof file with the independent `pprof-format` decoder
// (npm) and prints a JSON summary for the export tests: sample types, total
// of each value, function names, label keys, and every sample's stack as
// root-first function names with its labels (stack: one name per location;
// frames: every function of each location, inlined ones marked).
// Usage: NODE_PATH=<node_modules> node pprof_summary.js FILE.pb.gz
'use strict';
const fs = require('fs');
const zlib = require('zlib');
const { Profile } = require('pprof-format');

const prof = Profile.decode(zlib.gunzipSync(fs.readFileSync(process.argv[2])));
const st = prof.stringTable.strings;
const s = (i) => st[Number(i)];
if (st[0] !== '') throw new Error('string_table[0] is not empty');
const fnName = new Map(prof.function.map((f) => [Number(f.id), s(f.name)]));
const locFn = new Map(prof.location.map((l) => [Number(l.id), fnName.get(Number(l.line[0].functionId))]));
// Every function of a location, root first: its last line is the frame's own
// function, the ones before it were inlined into it (innermost first).
const locLines = new Map(prof.location.map((l) => [Number(l.id),
	l.line.map((ln, i) => ({ name: fnName.get(Number(ln.functionId)), inlined: i < l.line.length - 1,
		line: Number(ln.line) })).reverse()]));
const types = prof.sampleType.map((t) => s(t.type) + '/' + s(t.unit));
const totals = Object.fromEntries(types.map((t) => [t, 0]));
const samples = prof.sample.map((smp) => {
	smp.value.forEach((v, i) => { totals[types[i]] += Number(v); });
	const labels = {};
	for (const l of smp.label) labels[s(l.key)] = l.str ? s(l.str) : Number(l.num);
	return {
		stack: smp.locationId.map((id) => locFn.get(Number(id))).reverse(),
		frames: smp.locationId.slice().reverse().flatMap((id) => locLines.get(Number(id))),
		values: smp.value.map(Number),
		labels,
	};
});
console.log(JSON.stringify({
	types,
	totals,
	default_type: s(prof.defaultSampleType),
	functions: [...fnName.values()],
	mappings: prof.mapping.map((m) => s(m.filename)),
	build_ids: Object.fromEntries(prof.mapping.map((m) => [s(m.filename), s(m.buildId)])),
	duration_ns: Number(prof.durationNanos),
	time_ns: Number(prof.timeNanos),
	mapping_details: prof.mapping.map((m) => ({
		id: Number(m.id), file: s(m.filename), start: String(m.memoryStart),
		limit: String(m.memoryLimit), offset: String(m.fileOffset), build_id: s(m.buildId),
		inline: !!m.hasInlineFrames, lines: !!m.hasLineNumbers,
	})),
	// Locations whose address lies outside the range of a mapping that has one.
	outside: prof.location.filter((l) => {
		const m = prof.mapping.find((mm) => Number(mm.id) === Number(l.mappingId));
		const big = (v) => BigInt(String(v));
		return m && big(m.memoryLimit) !== 0n &&
			(big(l.address) < big(m.memoryStart) || big(l.address) >= big(m.memoryLimit));
	}).length,
	samples,
}));
