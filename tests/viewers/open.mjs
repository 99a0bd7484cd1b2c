// Opens pfconv's outputs in real viewers, headless: speedscope (served from
// its npm package) for Chrome JSON and folded stacks, and tells whether
// chrome://tracing exists in this Chromium.
//
// usage: node open.mjs [--name NAME]... [--names FILE] [--thread NAME]...
//                      [--chromium PATH] FILE...
//
// Each FILE (.json: Trace Event Format; anything else: folded stacks) must
// load in speedscope without an error page or alert, and every NAME (one
// per line in --names FILE) must be a frame of the profile speedscope parsed
// (taken from its Export button) and appear in its sandwich table. Each
// --thread NAME must have its own profile (JSON) or root frame (folded).
// A slice that speedscope's importer cannot end ("Doing nothing instead",
// "still open at end of profile") is a failure: the profile loads, but
// draws that slice and everything after it nested wrongly.
// Prints what it found; exits 1 on any failure, 2 on a usage error.
import { chromium } from 'playwright-core';
import { createServer } from 'node:http';
import { readFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const SPEEDSCOPE = join(here, 'node_modules', 'speedscope', 'dist', 'release');
const LOAD_TIMEOUT = 20000;

function usage(msg) {
	console.error(`open.mjs: ${msg}`);
	console.error('usage: node open.mjs [--name NAME]... [--names FILE] [--thread NAME]... [--chromium PATH] FILE...');
	process.exit(2);
}

const names = [], threads = [], files = [];
let chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
	const a = argv[i];
	const value = () => { if (i + 1 >= argv.length) usage(`'${a}' needs a value`); return argv[++i]; };
	if (a === '--name') names.push(value());
	else if (a === '--thread') threads.push(value());
	else if (a === '--chromium') chromiumPath = value();
	else if (a === '--names') {
		const f = value();
		let text;
		try { text = readFileSync(f, 'utf8'); } catch (e) { usage(`unable to read '${f}': ${e.message}`); }
		names.push(...text.split('\n').filter((l) => l !== ''));
	} else if (a.startsWith('--')) usage(`unknown option '${a}'`);
	else files.push(resolve(a));
}
if (files.length === 0) usage('no file to open');
for (const f of files) if (!existsSync(f)) usage(`no such file '${f}'`);
if (!existsSync(join(SPEEDSCOPE, 'index.html')))
	usage(`speedscope is not installed in '${SPEEDSCOPE}': run 'make deps' (npm ci --prefix tests/viewers)`);
if (!existsSync(chromiumPath)) usage(`no chromium at '${chromiumPath}': run 'make deps'`);

let failures = 0;
function fail(msg) { failures++; console.log(`FAIL: ${msg}`); }

// speedscope's release files under /, the files to open under /profile/N/NAME.
const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json',
	'.wasm': 'application/wasm', '.png': 'image/png', '.ico': 'image/x-icon', '.woff2': 'font/woff2' };
const server = createServer((req, res) => {
	const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
	let file;
	const m = /^\/profile\/(\d+)\//.exec(path);
	if (m) file = files[Number(m[1])];
	else if (!path.includes('..')) file = join(SPEEDSCOPE, path === '/' ? 'index.html' : path);
	let body;
	try { body = file && readFileSync(file); } catch { body = null; }
	if (!body) { res.writeHead(404); res.end(); return; }
	res.writeHead(200, { 'content-type': types[extname(file)] || 'application/octet-stream' });
	res.end(body);
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const origin = `http://127.0.0.1:${server.address().port}`;

// The flags keep Chromium off the network, which is closed here.
const userDir = mkdtempSync(join(tmpdir(), 'profev-viewers-'));
// What chrome://chrome-urls' "Enable internal debugging pages" button sets:
// without it, chrome://tracing is a page saying that it is disabled.
writeFileSync(join(userDir, 'Local State'), '{"internal_only_uis_enabled":true}');
let context;
try {
	context = await chromium.launchPersistentContext(userDir, {
		executablePath: chromiumPath, headless: true, acceptDownloads: true,
		args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
			'--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
	});
} catch (e) {
	console.log(`FAIL: unable to start '${chromiumPath}': ${e.message.split('\n')[0]}`);
	server.close();
	rmSync(userDir, { recursive: true, force: true });
	process.exit(1);
}

try {
	for (let i = 0; i < files.length; i++) await speedscope(i);
	await chromeTracing();
} finally {
	await context.close();
	server.close();
	rmSync(userDir, { recursive: true, force: true });
}
console.log(failures ? `${failures} failure(s)` : 'all viewers opened every file');
process.exit(failures ? 1 : 0);

async function speedscope(index) {
	const file = files[index];
	const what = `speedscope: '${basename(file)}'`;
	const failedBefore = failures;
	const page = await context.newPage();
	const problems = [], log = [], warnings = [];
	page.on('dialog', (d) => { problems.push(`alert: "${d.message()}"`); d.dismiss().catch(() => {}); });
	page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
	page.on('console', (m) => {
		log.push(m.text());
		if (/Doing nothing instead|was still open at end of profile/.test(m.text()))
			warnings.push(m.text());
		if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
	});
	page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}: ${r.failure()?.errorText}`));

	const profileURL = `${origin}/profile/${index}/${encodeURIComponent(basename(file))}`;
	await page.goto(`${origin}/#profileURL=${encodeURIComponent(profileURL)}&view=sandwich`);
	// Loaded: the sandwich table's header; failed: the error page or an alert.
	const exportTab = page.getByText(/^\W*Export$/);
	const table = page.getByText('Symbol Name', { exact: true });
	const errorPage = page.getByText('Something went wrong.');
	const deadline = Date.now() + LOAD_TIMEOUT;
	let state = 'timeout';
	while (Date.now() < deadline) {
		if (problems.some((p) => p.startsWith('alert') || p.startsWith('page error'))) { state = 'error'; break; }
		if (await errorPage.count()) { state = 'error page'; break; }
		if (await table.count()) { state = 'loaded'; break; }
		await page.waitForTimeout(100);
	}
	const importer = log.find((l) => l.startsWith('Importing as'));
	console.log(`${what}: ${importer ? importer.toLowerCase() : 'no importer named'}`);
	if (state !== 'loaded') {
		const quiet = log.filter((l) => !/^speedscope v|WebGL/.test(l));
		fail(`${what}: ${state === 'timeout' ? `not loaded after ${LOAD_TIMEOUT / 1000} s` :
			state === 'error page' ? 'speedscope shows "Something went wrong"' : 'load failed'}` +
			(problems.length ? `: ${problems.join('; ')}` : '') +
			(quiet.length ? ` (console: ${quiet.join(' | ')})` : ''));
		await screenshot(page, file);
		await page.close();
		return;
	}
	for (const p of problems) fail(`${what}: ${p}`);
	// The importer's complaints about slices it could not end: the profile
	// loads, but they and what follows them are drawn nested wrongly.
	if (warnings.length)
		fail(`${what}: ${warnings.length} slice(s) speedscope could not end, first: ${warnings.slice(0, 3).join(' | ')}`);

	// The parsed profile, as speedscope's Export button saves it.
	const [download] = await Promise.all([page.waitForEvent('download'), exportTab.click()]);
	const saved = await download.path();
	const parsed = JSON.parse(readFileSync(saved, 'utf8'));
	const frames = new Set(parsed.shared.frames.map((f) => f.name));
	const profiles = parsed.profiles.map((p) => p.name);
	console.log(`${what}: ${profiles.length} profile(s): ${profiles.map((p) => `"${p}"`).join(', ')}`);
	console.log(`${what}: ${frames.size} frame name(s): ${[...frames].map((f) => `"${f}"`).join(', ')}`);
	for (const n of names) if (!frames.has(n)) fail(`${what}: no frame named "${n}" in the parsed profile`);
	// speedscope names a Chrome JSON thread's profile "PROCESS (pid N), THREAD
	// (tid N)"; folded stacks start with a "THREAD (TID)" frame.
	for (const t of threads) {
		const found = extname(file) === '.json'
			? profiles.some((p) => p.includes(`, ${t} (tid `) || p.startsWith(`${t} (tid `))
			: [...frames].some((f) => f.startsWith(`${t} (`));
		if (!found) fail(`${what}: no ${extname(file) === '.json' ? 'profile' : 'frame'} for thread "${t}"`);
	}
	const empty = parsed.profiles.filter((p) => (p.events || p.samples || []).length === 0).map((p) => p.name);
	if (empty.length) console.log(`${what}: empty profile(s): ${empty.join(', ')}`);

	// What a person sees: the sandwich table lists the functions of the
	// profile on screen; 'n' shows the next profile (thread).
	const seen = new Set();
	for (let k = 0; k < profiles.length; k++) {
		if (k) { await page.keyboard.press('n'); await page.waitForTimeout(100); }
		const lines = new Set((await page.locator('body').innerText()).split('\n').map((l) => l.trim()));
		for (const n of names) if (lines.has(n)) seen.add(n);
	}
	const unseen = names.filter((n) => !seen.has(n));
	if (unseen.length) fail(`${what}: not shown in the sandwich table: ${unseen.map((n) => `"${n}"`).join(', ')}`);
	else console.log(`${what}: sandwich table shows all ${names.length} expected name(s)`);
	if (failures > failedBefore) await screenshot(page, file);
	await page.close();
}

// What the page looked like, beside the file, when something failed.
async function screenshot(page, file) {
	const png = `${file}.speedscope.png`;
	if (await page.screenshot({ path: png }).then(() => true, () => false))
		console.log(`speedscope: '${basename(file)}': screenshot in '${png}'`);
}

// In Debian's Chromium 156 chrome://tracing fails to load (net::ERR_FAILED),
// headless or in a window, while other internal debugging pages open: Debian
// patches catapult, the trace viewer behind that page, out of its build
// (disable/catapult.patch). Say so rather than pass in silence.
async function chromeTracing() {
	const page = await context.newPage();
	let error = null;
	try {
		await page.goto('chrome://tracing/', { timeout: 10000 });
	} catch (e) {
		error = e.message.split('\n')[0].replace(/^page\.goto: /, '');
	}
	if (error)
		console.log(`chrome://tracing: not available in this Chromium (${error}): not checked`);
	else
		console.log(`chrome://tracing: NOTE: the page opens in this Chromium ("${await page.title()}"), ` +
			'but open.mjs has no check for it yet: JSON files not checked there');
	await page.close();
}
