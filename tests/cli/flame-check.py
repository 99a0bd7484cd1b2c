#!/usr/bin/env python3
"""Checks pfconv's flame graphs (tests 346-348).

flame-check.py svg FILE.svg FOLDED [--base BASE_FOLDED]
    A strict XML parse of the SVG; its boxes (nested <g class="f">) against
    the folded stacks: each box weighs what the folded lines under its path
    weigh, a box of merged small frames what its parent's children that
    are not drawn weigh, each is as wide as its weight (1180 px for the
    whole) and at least a pixel wide; with --base, each box's data-b is the
    base's weight and its colour red where its share grew, blue where it
    shrank.
flame-check.py browse FILE [--chromium PATH] [--shot PNG] [--search RE] [--frames N]...
    Opens FILE (SVG or HTML) in headless Chromium: fails on any JavaScript
    error; every flame graph's script ran (data-ready: its box count); a
    click on a box zooms it to the whole width and hides the boxes beside
    it, a search marks the boxes whose names match; with --frames, the
    page's frame-time charts have that many points each (in order); with
    --shot, a screenshot of the page.
"""
import argparse
import os
import re
import sys
import tempfile
import xml.etree.ElementTree as ET

SVG = '{http://www.w3.org/2000/svg}'
INNER = 1180.0


def fail(msg):
    print('flame-check: ' + msg, file=sys.stderr)
    sys.exit(1)


def xml_text(s):
    """A name as the SVG holds it: what XML 1.0 forbids becomes U+FFFD, a tab
    a space."""
    return re.sub('[\x00-\x08\x0b-\x1f\ufffe\uffff]', '\ufffd', s.replace('\t', ' '))


def read_folded(path):
    stacks = {}
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = xml_text(line.rstrip('\n'))
            if not line:
                continue
            path_, w = line.rsplit(' ', 1)
            key = tuple(path_.split(';'))
            stacks[key] = stacks.get(key, 0) + int(w)
    return stacks


def inclusive(stacks):
    """Weight of every path prefix, and the self weight of every path."""
    inc = {(): 0}
    for key, w in stacks.items():
        for i in range(len(key) + 1):
            inc[key[:i]] = inc.get(key[:i], 0) + w
    return inc


def boxes_of(root):
    """(path, element, kind) of every box, the root's path ()."""
    frames = root.find(SVG + 'g[@class="frames"]')
    if frames is None:
        fail('no <g class="frames">')
    out = []

    def walk(g, path):
        for e in g.findall(SVG + 'g'):
            cls = e.get('class', '').split()
            if 'f' not in cls:
                fail('a <g> in the frames that is not a box: %s' % e.attrib)
            name = e.find(SVG + 'title').text.split('\n')[0]
            if 'm' in cls:
                if e.findall(SVG + 'g'):
                    fail('merged box with children under %s' % (path,))
                out.append((path, e, 'merged'))
                continue
            p = path + (name,) if out else ()
            out.append((p, e, 'box'))
            walk(e, p)
    walk(frames, None)
    return out


def check_svg(args):
    try:
        tree = ET.parse(args.file)  # expat: well-formed XML or an error
    except ET.ParseError as e:
        fail('%s: not well-formed XML: %s' % (args.file, e))
    root = tree.getroot()
    if root.tag != SVG + 'svg':
        fail('root element is %s, not svg' % root.tag)
    inc = inclusive(read_folded(args.folded))
    total = inc[()]
    if int(root.get('data-total')) != total:
        fail('data-total %s, the folded stacks weigh %d' % (root.get('data-total'), total))
    boxes = boxes_of(root)
    if total and not boxes:
        fail('no boxes')
    base_inc = inclusive(read_folded(args.base)) if args.base else None
    drawn = {}
    for path, e, kind in boxes:
        if kind == 'box':
            drawn[path] = e
    nmerged = 0
    for path, e, kind in boxes:
        v = int(e.get('data-v'))
        if kind == 'box':
            want = inc.get(path)
            if want != v:
                fail('box %s weighs %d, the folded stacks under it %s' % (';'.join(path), v, want))
        else:
            nmerged += 1
            kids = [p for p in drawn if len(p) == len(path) + 1 and p[:len(path)] == path]
            selfw = sum(w for k, w in read_self(args.folded).items() if k == path)
            want = inc[path] - selfw - sum(inc[k] for k in kids)
            if want != v:
                fail('merged box under %s weighs %d, its undrawn siblings %d' % (';'.join(path), v, want))
        r = e.find(SVG + 'rect')
        w = float(r.get('width'))
        if abs(w - v * INNER / total) > 0.011:
            fail('box %s is %.2f px wide for %d of %d' % (path, w, v, total))
        if w < 1.0:
            fail('box %s is narrower than a pixel: %.2f' % (path, w))
        if base_inc is not None and kind == 'box':
            b = int(e.get('data-b'))
            key = path
            if base_inc.get(key, 0) != b:
                fail('box %s: data-b %d, the base folded %s' % (path, b, base_inc.get(key, 0)))
            btotal = base_inc[()]
            d = v / total - (b / btotal if btotal else 0)
            fill = r.get('fill')
            m = re.match(r'rgb\((\d+),(\d+),(\d+)\)', fill)
            red, _, blue = (int(x) for x in m.groups())
            if abs(d) > 1e-9 and (d > 0) != (red == 255 and blue < 255):
                fail('box %s: share %+.4f against the base, colour %s' % (path, d, fill))
    print('svg: %d boxes (%d merged), total %d, well-formed' % (len(boxes), nmerged, total))


_self_cache = {}


def read_self(path):
    if path not in _self_cache:
        _self_cache[path] = read_folded(path)
    return _self_cache[path]


def browse(args):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import cdp
    if not os.access(args.chromium, os.X_OK):
        fail('no chromium at ' + args.chromium)
    prof = tempfile.mkdtemp(prefix='chromium-', dir='.')
    b = cdp.Browser(args.chromium, os.path.abspath(prof))
    try:
        url = 'file://' + os.path.abspath(args.file)
        b.open(url)
        counts = b.wait_for("(function(){var s=document.querySelectorAll('svg.flame');"
                            "if(!s.length)return null;var r=[];for(var i=0;i<s.length;i++){"
                            "if(!s[i].getAttribute('data-ready'))return null;"
                            "r.push(+s[i].getAttribute('data-ready'))}return r})()")
        if b.errors:
            fail('JavaScript errors in %s:\n  %s' % (args.file, '\n  '.join(b.errors)))
        nbox = b.eval("[].map.call(document.querySelectorAll('svg.flame'),"
                      "function(s){return s.querySelectorAll('g.f').length})")
        if counts != nbox:
            fail('graphs say they hold %s boxes, the DOM has %s' % (counts, nbox))
        print('browser: %d flame graph(s), boxes %s' % (len(counts), counts))
        # Zoom: the widest box at depth 2 of each graph fills the width; the
        # boxes beside it hide; the root fades behind it; reset restores.
        for i in range(len(counts)):
            r = b.eval("""(function(){
  var s = document.querySelectorAll('svg.flame')[%d];
  var W = +s.getAttribute('data-w');
  var root = s.querySelector('g.frames > g.f');
  if (!root) return 'empty';
  var kids = [].filter.call(root.children, function(e){ return e.matches('g.f:not(.m)'); });
  if (!kids.length) return 'flat';
  kids.sort(function(a, b){ return b.getAttribute('data-v') - a.getAttribute('data-v'); });
  var k = kids[kids.length - 1];
  var before = +k.querySelector('rect').getAttribute('width');
  k.dispatchEvent(new MouseEvent('click', {bubbles: true}));
  var after = +k.querySelector('rect').getAttribute('width');
  var hidden = s.querySelectorAll('g.f.hide').length;
  var faded = root.classList.contains('parent');
  s.querySelector('.unzoom').dispatchEvent(new MouseEvent('click', {bubbles: true}));
  var back = +k.querySelector('rect').getAttribute('width');
  return [before, after, hidden, faded, back, W, kids.length];
})()""" % i)
            if r in ('empty', 'flat'):
                print('browser: graph %d is %s: no zoom to try' % (i, r))
                continue
            before, after, hidden, faded, back, W, nk = r
            if abs(after - W) > 0.01 or abs(back - before) > 0.01 or not faded or \
                    (nk > 1 and not hidden):
                fail('graph %d: zoom on click: width %.2f -> %.2f (want %.0f) -> %.2f, '
                     '%d hidden, root faded %s' % (i, before, after, W, back, hidden, faded))
            print('browser: graph %d zooms a box from %.2f to %.2f px, %d hidden, reset' %
                  (i, before, after, hidden))
        if args.search:
            r = b.eval("""(function(){
  var s = document.querySelector('svg.flame'), re = new RegExp(%s);
  s.flame.find(%s);
  var want = [].filter.call(s.querySelectorAll('g.f'), function(g){
    return re.test(g.querySelector('title').textContent.split('\\n')[0]); }).length;
  var marked = [].filter.call(s.querySelectorAll('g.f > rect'), function(r){
    return r.getAttribute('fill') == 'rgb(230,0,230)'; }).length;
  var m = s.querySelector('.matched');
  return [want, marked, +m.getAttribute('data-hits'), m.textContent];
})()""" % (repr(args.search), repr(args.search)))
            want, marked, hits, text = r
            if not want or marked != want or hits != want or not text.startswith('Matched: '):
                fail('search %r: %d boxes match, %d marked, %d hits, %r' %
                     (args.search, want, marked, hits, text))
            print('browser: search %r marks %d boxes, %s' % (args.search, marked, text))
        if args.frames:
            pts = b.eval("[].map.call(document.querySelectorAll('svg.chart polyline.frames'),"
                         "function(p){return p.points.numberOfItems})")
            if pts != args.frames:
                fail('frame charts have %s points, want %s (one per frame)' % (pts, args.frames))
            print('browser: frame charts have %s points' % pts)
        if args.sort:
            r = b.eval("""(function(){
  var t = document.querySelector('table.sortable'), th = t.querySelectorAll('th');
  function col(i) { return [].map.call(t.tBodies[0].rows, function(r){ return +r.cells[i].getAttribute('data-v'); }); }
  th[1].dispatchEvent(new MouseEvent('click', {bubbles: true}));
  var down = col(1);
  th[1].dispatchEvent(new MouseEvent('click', {bubbles: true}));
  var up = col(1);
  return [down, up];
})()""")
            down, up = r
            if len(down) < 2 or down != sorted(down, reverse=True) or up != sorted(up):
                fail('zone table sorted by count: %s, then %s' % (down, up))
            print('browser: the zone table sorts by count, %d rows, both ways' % len(down))
        if args.shot:
            b.screenshot(args.shot)
            print('browser: screenshot %s' % os.path.abspath(args.shot))
        if b.errors:
            fail('JavaScript errors in %s:\n  %s' % (args.file, '\n  '.join(b.errors)))
    finally:
        b.close()


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest='cmd', required=True)
    s = sub.add_parser('svg')
    s.add_argument('file')
    s.add_argument('folded')
    s.add_argument('--base')
    s.set_defaults(fn=check_svg)
    br = sub.add_parser('browse')
    br.add_argument('file')
    br.add_argument('--chromium', default='/usr/bin/chromium')
    br.add_argument('--shot')
    br.add_argument('--search')
    br.add_argument('--frames', type=int, action='append')
    br.add_argument('--sort', action='store_true')
    br.set_defaults(fn=browse)
    args = ap.parse_args()
    args.fn(args)


if __name__ == '__main__':
    main()
