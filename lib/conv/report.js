// profev's HTML report: the frame-time charts, the sortable tables, and the
// flame graphs' script (flame.js, before this one) for each graph. Plain
// JavaScript with no library; the data is the JSON in #profev-data: per run,
// per frame set, the frames' starts and durations (ns) and the worst ones.
(function () {
	'use strict';
	var NS = 'http://www.w3.org/2000/svg';
	var data = JSON.parse(document.getElementById('profev-data').textContent);

	function el(name, attrs, parent) {
		var e = document.createElementNS(NS, name);
		for (var k in attrs)
			e.setAttribute(k, attrs[k]);
		if (parent)
			parent.appendChild(e);
		return e;
	}
	function ms(ns) {
		return (ns / 1e6).toFixed(ns < 1e7 ? 2 : 1) + ' ms';
	}

	// One chart per frame set: a point per frame (x its start, y its
	// duration), the worst frames circled, p50 and p99 as dashed lines.
	function chart(svg, set) {
		var W = 560, H = 180, L = 52, B = 22, T = 8, R = 8;
		svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
		var n = set.ns.length;
		var t0 = n ? set.start[0] : 0, t1 = n ? set.start[n - 1] + set.ns[n - 1] : 1;
		var ymax = 0;
		for (var i = 0; i < n; i++)
			ymax = Math.max(ymax, set.ns[i]);
		ymax = ymax || 1;
		function x(t) { return L + (W - L - R) * (t - t0) / Math.max(1, t1 - t0); }
		function y(v) { return H - B - (H - B - T) * v / ymax; }
		el('rect', { x: L, y: T, width: W - L - R, height: H - B - T, 'class': 'plot' }, svg);
		[set.p50, set.p99].forEach(function (v, k) {
			el('line', { x1: L, x2: W - R, y1: y(v), y2: y(v), 'class': 'pct' }, svg);
			el('text', { x: W - R - 2, y: y(v) - 2, 'class': 'pct' }, svg).textContent =
				(k ? 'p99 ' : 'p50 ') + ms(v);
		});
		var pts = [];
		for (i = 0; i < n; i++)
			pts.push(x(set.start[i]).toFixed(1) + ',' + y(set.ns[i]).toFixed(1));
		el('polyline', { points: pts.join(' '), 'class': 'frames' }, svg);
		set.worst.forEach(function (i) {
			var c = el('circle', { cx: x(set.start[i]), cy: y(set.ns[i]), r: 4, 'class': 'worst' }, svg);
			el('title', {}, c).textContent = 'frame ' + set.number[i] + ': ' + ms(set.ns[i]) +
				' at ' + (set.start[i] / 1e9).toFixed(3) + ' s';
		});
		el('text', { x: L - 4, y: T + 10, 'class': 'axis', 'text-anchor': 'end' }, svg).textContent = ms(ymax);
		el('text', { x: L - 4, y: H - B, 'class': 'axis', 'text-anchor': 'end' }, svg).textContent = '0';
		el('text', { x: L, y: H - 6, 'class': 'axis' }, svg).textContent = (t0 / 1e9).toFixed(2) + ' s';
		el('text', { x: W - R, y: H - 6, 'class': 'axis', 'text-anchor': 'end' }, svg).textContent =
			(t1 / 1e9).toFixed(2) + ' s';
		svg.setAttribute('data-points', String(n));
	}

	// Tables whose headings sort them: numbers by their data-v, text by itself.
	function sortable(table) {
		var ths = table.querySelectorAll('th');
		[].forEach.call(ths, function (th, col) {
			th.addEventListener('click', function () {
				var down = th.getAttribute('data-sort') !== 'down';
				[].forEach.call(ths, function (h) { h.removeAttribute('data-sort'); });
				th.setAttribute('data-sort', down ? 'down' : 'up');
				var body = table.tBodies[0];
				var rows = [].slice.call(body.rows);
				rows.sort(function (a, b) {
					var x = a.cells[col], y = b.cells[col];
					var vx = x.getAttribute('data-v'), vy = y.getAttribute('data-v');
					var d = vx !== null ? vx - vy : x.textContent < y.textContent ? -1 :
						x.textContent > y.textContent ? 1 : 0;
					return down ? -d : d;
				});
				rows.forEach(function (r) { body.appendChild(r); });
			});
		});
	}

	var charts = document.querySelectorAll('svg.chart');
	[].forEach.call(charts, function (svg) {
		var run = +svg.getAttribute('data-run'), set = +svg.getAttribute('data-set');
		chart(svg, data.runs[run].sets[set]);
	});
	[].forEach.call(document.querySelectorAll('table.sortable'), sortable);
	[].forEach.call(document.querySelectorAll('svg.flame'), function (svg) { flameInit(svg, false); });
	document.body.setAttribute('data-ready', '1');
})();
