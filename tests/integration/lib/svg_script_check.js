// SPDX-License-Identifier: GPL-2.0-only
// Runs the script of a threadtop SVG flame graph against a small stand-in
// for the browser's DOM and checks what a user would see: labels fitted at
// load, a click zooms a frame to the full width (its callers full width
// below it, unrelated frames hidden), a second click resets, and a search
// highlights matches and reports their share.
// Usage: node svg_script_check.js SCRIPT.js FRAMES.json SEARCH_TERM
// FRAMES.json: [{x, w, y, name, info, fill}] as in the SVG, plus "width".
'use strict';
const fs = require('fs');
const assert = require('assert');
const vm = require('vm');

const script = fs.readFileSync(process.argv[2], 'utf8');
const spec = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'));
const term = process.argv[4];

function element(attrs) {
	const el = {
		attrs: Object.assign({}, attrs), style: {}, textContent: '', listeners: {}, children: {},
		getAttribute(k) { return k in this.attrs ? String(this.attrs[k]) : null; },
		setAttribute(k, v) { this.attrs[k] = v; },
		addEventListener(type, fn) { this.listeners[type] = fn; },
		getElementsByTagName(tag) { return this.children[tag] || []; },
	};
	return el;
}
const gs = spec.frames.map((f) => {
	const g = element({ 'data-name': f.name, 'data-info': f.info, class: 'f' });
	g.children.rect = [element({ x: f.x, width: f.w, y: f.y, fill: f.fill })];
	g.children.text = [element({})];
	return g;
});
const byId = {
	frames: Object.assign(element({}), { children: { g: gs } }),
	details: element({}), matched: element({}), reset: element({}), search: element({}),
};
const doc = Object.assign(element({}), {
	documentElement: element({ width: spec.width }),
	getElementById: (id) => byId[id],
});
const ctx = { document: doc, prompt: () => term, Math, RegExp };
vm.createContext(ctx);
vm.runInContext(script, ctx);
vm.runInContext('init({})', ctx);

const W = spec.width - 20;
const rect = (g) => g.children.rect[0];
const shown = (g) => g.style.display !== 'none';
// At load: every frame shown where the SVG put it; wide ones labelled.
const widest = gs.reduce((a, g) => (+rect(g).attrs.width > +rect(a).attrs.width ? g : a));
assert.ok(gs.every(shown));
assert.ok(widest.children.text[0].textContent.length > 0, 'no label on the widest frame');
// Zoom into the narrowest frame at the deepest level.
const target = gs.reduce((a, g) => (+rect(g).attrs.y < +rect(a).attrs.y ? g : a));
const t0 = { y: +rect(target).attrs.y };
target.listeners.click();
assert.ok(Math.abs(+rect(target).attrs.width - W) < 0.01, 'zoomed frame is not full width');
for (const g of gs) {
	const y = +rect(g).attrs.y;
	if (y > t0.y && shown(g)) assert.ok(Math.abs(+rect(g).attrs.width - W) < 0.01, 'caller not full width');
}
// Frames that are neither the zoomed frame, its callers nor its callees are hidden.
const zx = spec.frames[gs.indexOf(target)];
for (let i = 0; i < gs.length; i++) {
	const f = spec.frames[i];
	const related = f.x <= zx.x + 1e-6 && f.x + f.w >= zx.x + zx.w - 1e-6;
	if (!related) assert.ok(!shown(gs[i]), 'unrelated frame shown: ' + f.name);
}
// Hover shows the details.
target.listeners.mouseover();
assert.strictEqual(byId.details.textContent, target.getAttribute('data-info'));
// Clicking the zoomed frame again resets.
target.listeners.click();
assert.ok(gs.every(shown));
assert.strictEqual(rect(widest).attrs.width, (+spec.frames[gs.indexOf(widest)].w).toFixed(2));
// Search: matches turn magenta and their share is shown.
byId.search.listeners.click();
const hits = gs.filter((g) => rect(g).attrs.fill === 'rgb(230,0,230)');
assert.ok(hits.length > 0, 'search found nothing for ' + term);
assert.match(byId.matched.textContent, /^Matched: \d+\.\d%$/);
byId.search.listeners.click(); // clears
assert.ok(gs.every((g) => rect(g).attrs.fill !== 'rgb(230,0,230)'));
console.log('script ok: ' + gs.length + ' frames, ' + hits.length + ' matched');
