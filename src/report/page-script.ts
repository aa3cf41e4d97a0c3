/**
 * The report page's own script (plain ES2017, runs in the browser). It reads
 * the JSON data element, draws the charts with the inlined uPlot, marks
 * alarms as dashed vertical lines (red raised, green cleared) and publishes
 * `window.__ratewiseReport = { ready, charts: [{ id, points, lengths,
 * values }], errors }` so an automated check can tell the charts were drawn
 * with data.
 */
export const PAGE_SCRIPT = `(function () {
  'use strict';
  var status = { ready: false, charts: [], errors: [] };
  window.__ratewiseReport = status;
  window.addEventListener('error', function (e) { status.errors.push(String(e.message)); });
  var data = JSON.parse(document.getElementById('ratewise-data').textContent);
  var s = data.series;
  var COLORS = { alarm: '#d62728', clear: '#2ca02c' };
  var HEIGHT = 260;

  function width() {
    return Math.max(360, Math.min(1100, document.documentElement.clientWidth - 48));
  }
  function alarmLines() {
    return { hooks: { draw: [function (u) {
      var ctx = u.ctx;
      var ratio = window.devicePixelRatio || 1;
      ctx.save();
      ctx.lineWidth = ratio;
      ctx.setLineDash([4 * ratio, 4 * ratio]);
      data.alarms.forEach(function (a) {
        var x = Math.round(u.valToPos(a.t, 'x', true));
        if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) return;
        ctx.strokeStyle = COLORS[a.transition] || '#888';
        ctx.beginPath();
        ctx.moveTo(x, u.bbox.top);
        ctx.lineTo(x, u.bbox.top + u.bbox.height);
        ctx.stroke();
      });
      ctx.restore();
    }] } };
  }
  function line(label, color, scale, extra) {
    return Object.assign({ label: label, stroke: color, width: 2, scale: scale, spanGaps: false }, extra || {});
  }
  function markers(label, color) {
    return {
      label: label, stroke: color, fill: color, scale: 'count', width: 0,
      paths: function () { return null; },
      points: { show: true, size: 8, fill: color, stroke: color }
    };
  }
  function axis(scale, label, side) {
    return { scale: scale, label: label, side: side, grid: { show: side !== 1 } };
  }
  function countValues(values) {
    return values.filter(function (v) { return v !== null && v !== undefined; }).length;
  }
  function chart(id, title, series, arrays, axes) {
    var target = document.getElementById(id);
    var opts = {
      title: title,
      width: width(),
      height: HEIGHT,
      scales: { x: { time: data.wallClock } },
      series: [{ label: data.wallClock ? 'time' : 'seconds' }].concat(series),
      axes: [{}].concat(axes),
      plugins: [alarmLines()]
    };
    var plot = new uPlot(opts, [s.t].concat(arrays), target);
    status.charts.push({
      id: id,
      points: s.t.length,
      lengths: arrays.map(function (a) { return a.length; }),
      values: arrays.map(countValues)
    });
    return plot;
  }

  var plots = [];
  try {
    plots.push(chart('chart-throughput', 'Throughput and rejections',
      [line('req/s', '#1f77b4', 'rps'), markers('429s', '#ff7f0e'), markers('503s', '#9467bd')],
      [s.rps, s.throttled, s.overloaded],
      [axis('rps', 'req/s', 3), axis('count', 'rejections per bucket', 1)]));
    plots.push(chart('chart-latency', 'Latency',
      [line('p50 ms', '#2ca02c', 'ms'), line('p95 ms', '#d62728', 'ms')],
      [s.p50, s.p95],
      [axis('ms', 'ms', 3)]));
    if (data.hasControl) {
      var stepped = uPlot.paths.stepped({ align: 1 });
      plots.push(chart('chart-control', 'Controller: limit, in flight, rate',
        [line('limit', '#8c564b', 'n', { paths: stepped }), line('in flight (max)', '#17becf', 'n'),
         line('rate req/s', '#bcbd22', 'rate', { paths: stepped })],
        [s.limit, s.inflight, s.rate],
        [axis('n', 'requests', 3), axis('rate', 'req/s', 1)]));
    }
    window.addEventListener('resize', function () {
      plots.forEach(function (p) { p.setSize({ width: width(), height: HEIGHT }); });
    });
    status.ready = true;
  } catch (e) {
    status.errors.push(String((e && e.stack) || e));
    throw e;
  }
})();
`;
