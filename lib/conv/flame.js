// profev's flame graph: hover, zoom on click, search. Plain JavaScript with
// no library, run by the SVG that pfconv writes (flameInit(root, true)) or
// by the HTML report for each graph it holds. The boxes are nested <g
// class="f"> elements, each a <title> (the name, a line end, the figures),
// a <rect> and a <text>; the svg element carries the layout in data-xpad
// (left margin), data-w (the width of the root box) and data-fs (font size).
function flameInit(svg, standalone) {
	'use strict';
	var xpad = +svg.getAttribute('data-xpad'), width = +svg.getAttribute('data-w');
	var fs = +svg.getAttribute('data-fs');
	var details = svg.querySelector('.details'), matched = svg.querySelector('.matched');
	var unzoom = svg.querySelector('.unzoom'), search = svg.querySelector('.search');
	var boxes = [].slice.call(svg.querySelectorAll('g.f'));
	var info = boxes.map(function (g) {
		var r = g.querySelector('rect'), t = g.querySelector('text');
		var title = g.querySelector('title').textContent;
		var nl = title.indexOf('\n');
		return g.flameBox = {
			g: g, rect: r, text: t,
			name: nl < 0 ? title : title.substring(0, nl),
			what: nl < 0 ? '' : title.substring(nl + 1),
			x: +r.getAttribute('x'), w: +r.getAttribute('width'),
			fill: r.getAttribute('fill'),
			v: +g.getAttribute('data-v')
		};
	});
	var zoomed = null, term = null;

	function label(b, w) {
		var room = Math.floor((w - 6) / (fs * 0.59));
		if (room < 3)
			return '';
		return b.name.length <= room ? b.name : b.name.substring(0, room - 2) + '..';
	}
	function place(b, x, w) {
		b.rect.setAttribute('x', x.toFixed(2));
		b.rect.setAttribute('width', w.toFixed(2));
		b.text.setAttribute('x', (x + 3).toFixed(2));
		b.text.textContent = label(b, w);
	}
	function zoom(b) {
		var scale = width / b.w;
		info.forEach(function (e) {
			e.g.classList.remove('hide', 'parent');
			if (e === b || b.g.contains(e.g)) {
				place(e, xpad + (e.x - b.x) * scale, e.w * scale);
			} else if (e.g.contains(b.g)) {
				e.g.classList.add('parent');
				place(e, xpad, width);
			} else {
				e.g.classList.add('hide');
			}
		});
		zoomed = b;
		unzoom.classList.remove('hide');
	}
	function reset() {
		info.forEach(function (e) {
			e.g.classList.remove('hide', 'parent');
			place(e, e.x, e.w);
		});
		zoomed = null;
		unzoom.classList.add('hide');
	}
	function find(s) {
		var re;
		try {
			re = new RegExp(s);
		} catch (err) {
			matched.textContent = 'Bad expression: ' + s;
			return;
		}
		term = s;
		var sum = 0, top = info.length ? info[0].v : 0;
		var hits = [];
		info.forEach(function (e) {
			var hit = re.test(e.name);
			e.rect.setAttribute('fill', hit ? 'rgb(230,0,230)' : e.fill);
			if (hit)
				hits.push(e);
		});
		// Time in a match inside a match counts once.
		hits.forEach(function (e) {
			for (var p = e.g.parentNode; p && p !== svg; p = p.parentNode)
				if (p.flameBox && re.test(p.flameBox.name))
					return;
			sum += e.v;
		});
		matched.textContent = 'Matched: ' + (top ? (100 * sum / top).toFixed(1) : '0.0') + '%';
		matched.setAttribute('data-hits', hits.length);
		search.textContent = 'Clear';
	}
	function clear() {
		info.forEach(function (e) { e.rect.setAttribute('fill', e.fill); });
		matched.textContent = '';
		matched.removeAttribute('data-hits');
		search.textContent = 'Search';
		term = null;
	}
	function ask() {
		if (term !== null)
			return clear();
		var s = window.prompt('Search for (a regular expression):', '');
		if (s)
			find(s);
	}
	info.forEach(function (b) {
		b.g.addEventListener('click', function (ev) {
			ev.stopPropagation();
			zoom(b);
		});
		b.g.addEventListener('mouseover', function (ev) {
			ev.stopPropagation();
			details.textContent = b.name + ' (' + b.what + ')';
		});
		b.g.addEventListener('mouseout', function () { details.textContent = ' '; });
	});
	unzoom.addEventListener('click', reset);
	search.addEventListener('click', ask);
	if (standalone) {
		window.addEventListener('keydown', function (ev) {
			if ((ev.ctrlKey || ev.metaKey) && ev.key === 'f') {
				ev.preventDefault();
				ask();
			} else if (ev.key === 'Escape') {
				reset();
				clear();
			}
		});
		var q = /[?&]s=([^&]*)/.exec(window.location.search);
		if (q)
			find(decodeURIComponent(q[1].replace(/\+/g, ' ')));
	}
	svg.flame = { zoom: function (i) { zoom(info[i]); }, reset: reset, find: find, clear: clear };
	svg.setAttribute('data-ready', String(info.length));
}
