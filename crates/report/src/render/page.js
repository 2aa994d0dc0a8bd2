(function () {
  'use strict';
  var rendered = [];

  // Tables sort by the clicked column: numbers by their value, text
  // alphabetically; a second click reverses.
  function sortTable(table, column, heading) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var descending = heading.getAttribute('data-order') !== 'desc';
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (cell) {
      cell.removeAttribute('data-order');
    });
    heading.setAttribute('data-order', descending ? 'desc' : 'asc');
    function key(row) {
      var cell = row.cells[column];
      var value = cell.getAttribute('data-value');
      return value === null ? cell.textContent.trim().toLowerCase() : Number(value);
    }
    rows.sort(function (a, b) {
      var x = key(a), y = key(b);
      var order = (typeof x === 'number' && typeof y === 'number')
        ? x - y : String(x).localeCompare(String(y));
      return descending ? -order : order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
  }
  Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (heading, column) {
      heading.addEventListener('click', function () { sortTable(table, column, heading); });
    });
  });
  rendered.push('tables');

  var filter = document.getElementById('region-filter');
  if (filter) {
    filter.addEventListener('input', function () {
      var needle = filter.value.toLowerCase();
      Array.prototype.forEach.call(document.querySelectorAll('#regions tbody tr'), function (row) {
        row.hidden = needle !== '' && row.textContent.toLowerCase().indexOf(needle) < 0;
      });
    });
  }

  // The flame graph's own details line shows the frame under the pointer;
  // a click zooms into a frame (its ancestors stay, faded), the button or a
  // double click shows everything again.
  var flame = document.querySelector('.flame svg');
  if (flame) {
    var details = flame.querySelector('#details');
    var frames = flame.querySelector('#frames');
    var reset = document.getElementById('flame-reset');
    var total = Number(frames && frames.getAttribute('total_samples')) || 1;
    var groups = frames ? Array.prototype.slice.call(frames.querySelectorAll(':scope > g')) : [];
    groups.forEach(function (group) {
      var title = group.querySelector('title').textContent;
      var cut = title.lastIndexOf(' (');
      group.pompName = group.getAttribute('data-name') || (cut > 0 ? title.slice(0, cut) : title);
      var rect = group.querySelector('rect');
      group.pompStart = Number(rect.getAttribute('fg:x'));
      group.pompWidth = Number(rect.getAttribute('fg:w'));
    });
    // Labels measured in the page's own font: the whole name where it
    // fits in the frame (less the label's offset), else its longest start
    // that fits with '..'.
    function label(group) {
      var text = group.querySelector('text');
      var name = group.pompName;
      var room = group.querySelector('rect').getBBox().width - 3;
      var fits = function (candidate) {
        text.textContent = candidate;
        return text.getComputedTextLength() <= room;
      };
      if (fits(name)) { return; }
      var shortest = 0, longest = name.length - 1;
      while (shortest < longest) {
        var middle = (shortest + longest + 1) >> 1;
        if (fits(name.slice(0, middle) + '..')) { shortest = middle; } else { longest = middle - 1; }
      }
      text.textContent = shortest > 0 ? name.slice(0, shortest) + '..' : '';
    }
    function zoom(start, width) {
      groups.forEach(function (group) {
        var rect = group.querySelector('rect');
        var end = group.pompStart + group.pompWidth;
        var ancestor = group.pompStart <= start && end >= start + width;
        var inside = group.pompStart >= start && end <= start + width;
        group.style.display = ancestor || inside ? '' : 'none';
        group.classList.toggle('parent', ancestor && group.pompWidth > width);
        var x = ancestor ? 0 : (group.pompStart - start) / width * 100;
        var w = ancestor ? 100 : group.pompWidth / width * 100;
        rect.setAttribute('x', x.toFixed(4) + '%');
        rect.setAttribute('width', w.toFixed(4) + '%');
        group.querySelector('text').setAttribute('x', (x + 0.25).toFixed(4) + '%');
        if (group.style.display === '') { label(group); }
      });
      if (reset) { reset.hidden = width >= total; }
    }
    groups.forEach(function (group) { if (group.hasAttribute('data-name')) { label(group); } });
    flame.addEventListener('mouseover', function (event) {
      var group = event.target.closest && event.target.closest('#frames > g');
      var title = group && group.querySelector('title');
      if (details && title) { details.textContent = title.textContent; }
    });
    flame.addEventListener('mouseleave', function () {
      if (details) { details.textContent = ' '; }
    });
    flame.addEventListener('click', function (event) {
      var group = event.target.closest && event.target.closest('#frames > g');
      if (group) { zoom(group.pompStart, Math.max(group.pompWidth, 1)); }
    });
    flame.addEventListener('dblclick', function () { zoom(0, total); });
    if (reset) { reset.addEventListener('click', function () { zoom(0, total); }); }
    rendered.push('flamegraph');
  }

  var data = document.getElementById('timeline-data');
  if (data) {
    drawTimelines(JSON.parse(data.textContent));
    rendered.push('timeline');
  }

  function formatTime(ns) {
    var units = [[1e9, 's'], [1e6, 'ms'], [1e3, 'µs']];
    for (var i = 0; i < units.length; i++) {
      if (ns >= units[i][0]) {
        var value = ns / units[i][0];
        return value.toFixed(value >= 100 ? 0 : value >= 10 ? 1 : 2) + ' ' + units[i][1];
      }
    }
    return Math.round(ns) + ' ns';
  }

  function drawTimelines(timeline) {
    var canvas = document.getElementById('timeline-canvas');
    var tip = document.getElementById('timeline-tip');
    var context = canvas.getContext('2d');
    var styles = getComputedStyle(document.documentElement);
    var colours = {};
    ['parallel', 'work', 'sync', 'control', 'task', 'user'].forEach(function (name) {
      colours[name] = styles.getPropertyValue('--' + name).trim() || '#888';
    });
    var ROW = 14, GAP = 10, LABEL = 120, AXIS = 22;
    var lanes = [];
    var y = AXIS;
    timeline.threads.forEach(function (thread) {
      var depth = 0;
      for (var i = 2; i < thread.spans.length; i += 4) { depth = Math.max(depth, thread.spans[i]); }
      lanes.push({ thread: thread, top: y, rows: depth + 1 });
      y += (depth + 1) * ROW + GAP;
    });
    var height = y;
    var full = { start: timeline.start, end: Math.max(timeline.end, timeline.start + 1) };
    var view = { start: full.start, end: full.end };

    function width() { return canvas.clientWidth || canvas.parentElement.clientWidth || 800; }
    function toX(t) { return LABEL + (t - view.start) / (view.end - view.start) * (width() - LABEL); }
    function toTime(x) { return view.start + (x - LABEL) / (width() - LABEL) * (view.end - view.start); }

    function draw() {
      var ratio = window.devicePixelRatio || 1;
      var w = width();
      canvas.width = Math.round(w * ratio);
      canvas.height = Math.round(height * ratio);
      canvas.style.height = height + 'px';
      context.setTransform(ratio, 0, 0, ratio, 0, 0);
      context.clearRect(0, 0, w, height);
      context.font = '11px system-ui, sans-serif';
      context.textBaseline = 'middle';
      // Time axis.
      context.fillStyle = '#5f6878';
      context.strokeStyle = '#d9dde5';
      var ticks = 8;
      for (var k = 0; k <= ticks; k++) {
        var t = view.start + (view.end - view.start) * k / ticks;
        var x = toX(t);
        context.beginPath();
        context.moveTo(x, AXIS - 4);
        context.lineTo(x, height);
        context.stroke();
        context.fillText(formatTime(t - full.start), Math.min(x + 2, w - 50), 10);
      }
      lanes.forEach(function (lane) {
        context.fillStyle = '#1d2330';
        context.fillText(lane.thread.name, 4, lane.top + ROW / 2);
        var spans = lane.thread.spans;
        for (var i = 0; i < spans.length; i += 4) {
          var start = spans[i], end = spans[i + 1];
          if (end < view.start || start > view.end) { continue; }
          var x0 = Math.max(toX(start), LABEL), x1 = Math.min(toX(end), w);
          if (x1 - x0 < 0.25) { continue; }
          var top = lane.top + spans[i + 2] * ROW;
          var frame = spans[i + 3];
          context.fillStyle = colours[timeline.classes[frame]] || '#888';
          context.fillRect(x0, top + 1, Math.max(x1 - x0, 0.5), ROW - 2);
          if (x1 - x0 > 40) {
            context.save();
            context.beginPath();
            context.rect(x0, top, x1 - x0, ROW);
            context.clip();
            context.fillStyle = '#fff';
            context.fillText(timeline.frames[frame], x0 + 3, top + ROW / 2);
            context.restore();
          }
        }
      });
    }

    function spanAt(x, y) {
      var time = toTime(x);
      for (var l = 0; l < lanes.length; l++) {
        var lane = lanes[l];
        if (y < lane.top || y >= lane.top + lane.rows * ROW) { continue; }
        var depth = Math.floor((y - lane.top) / ROW);
        var spans = lane.thread.spans;
        for (var i = 0; i < spans.length; i += 4) {
          if (spans[i + 2] === depth && spans[i] <= time && time <= spans[i + 1]) {
            return { lane: lane, start: spans[i], end: spans[i + 1], frame: spans[i + 3] };
          }
        }
      }
      return null;
    }

    var drag = null;
    canvas.addEventListener('mousedown', function (event) {
      drag = { x: event.clientX, start: view.start, end: view.end };
      canvas.style.cursor = 'grabbing';
    });
    window.addEventListener('mouseup', function () {
      drag = null;
      canvas.style.cursor = '';
    });
    canvas.addEventListener('mousemove', function (event) {
      var box = canvas.getBoundingClientRect();
      var x = event.clientX - box.left, y = event.clientY - box.top;
      if (drag) {
        var shift = (event.clientX - drag.x) / (width() - LABEL) * (drag.end - drag.start);
        view.start = drag.start - shift;
        view.end = drag.end - shift;
        draw();
        return;
      }
      var span = x > LABEL ? spanAt(x, y) : null;
      if (!span) { tip.hidden = true; return; }
      tip.textContent = timeline.frames[span.frame] + ' — ' + formatTime(span.end - span.start) +
        ' (at ' + formatTime(span.start - full.start) + ', ' + span.lane.thread.name + ')';
      tip.style.left = Math.min(x + 12, width() - 260) + 'px';
      tip.style.top = (y + 14) + 'px';
      tip.hidden = false;
    });
    canvas.addEventListener('mouseleave', function () { tip.hidden = true; });
    canvas.addEventListener('wheel', function (event) {
      event.preventDefault();
      var box = canvas.getBoundingClientRect();
      var x = event.clientX - box.left;
      if (x < LABEL) { return; }
      var at = toTime(x);
      var factor = event.deltaY > 0 ? 1.25 : 0.8;
      var span = Math.max((view.end - view.start) * factor, 10);
      var left = (at - view.start) / (view.end - view.start);
      view.start = at - span * left;
      view.end = view.start + span;
      draw();
    }, { passive: false });
    canvas.addEventListener('dblclick', function () {
      view.start = full.start;
      view.end = full.end;
      draw();
    });
    window.addEventListener('resize', draw);
    draw();
  }

  document.body.setAttribute('data-rendered', rendered.join(' '));
  document.body.setAttribute('data-errors', String(window.pompErrors.length));
})();
