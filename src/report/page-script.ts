/**
 * The report page's own script (plain ES2017, runs in the browser). It reads
 * the JSON data element, draws the charts with the inlined uPlot (every
 * y-axis from zero; a comparison chart first when the report compares two
 * runs), marks alarms as dashed vertical lines (red raised, green cleared) and publishes
 * `window.__ratewiseReport = { ready, charts: [{ id, points, lengths,
 * values, yMin }], errors }` so an automated check can tell the charts were drawn
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
  // Every y-axis starts at zero, so a small change does not look like a cliff.
  function fromZero(u, min, max) {
    return [0, max > 0 ? max * 1.05 : 1];
  }
  function chart(id, title, series, arrays, axes, x) {
    x = x || { values: s.t, time: data.wallClock, label: data.wallClock ? 'time' : 'seconds' };
    var target = document.getElementById(id);
    var scales = { x: { time: x.time } };
    series.forEach(function (one) { scales[one.scale] = { range: fromZero }; });
    var entry = {
      id: id,
      points: x.values.length,
      lengths: arrays.map(function (a) { return a.length; }),
      values: arrays.map(countValues),
      yMin: []
    };
    var plugins = [{ hooks: { draw: [function (u) {
      entry.yMin = Object.keys(scales).filter(function (k) { return k !== 'x'; })
        .map(function (k) { return u.scales[k].min; });
    }] } }];
    if (x.time === data.wallClock) plugins.push(alarmLines());
    var opts = {
      title: title,
      width: width(),
      height: HEIGHT,
      scales: scales,
      series: [{ label: x.label }].concat(series),
      axes: [{}].concat(axes),
      plugins: plugins
    };
    var plot = new uPlot(opts, [x.values].concat(arrays), target);
    status.charts.push(entry);
    return plot;
  }

  var plots = [];
  try {
    var c = data.comparison;
    if (c) {
      plots.push(chart('chart-compare', c.labels[0] + ' and ' + c.labels[1] + ': ok per second and refusals, from each run\u2019s start',
        [line('ok/s ' + c.labels[0], '#1f77b4', 'rps'), line('ok/s ' + c.labels[1], '#7f7f7f', 'rps'),
         markers('429+503 ' + c.labels[0], '#ff7f0e'), markers('429+503 ' + c.labels[1], '#d62728')],
        [c.ok[0], c.ok[1], c.refused[0], c.refused[1]],
        [axis('rps', 'ok/s', 3), axis('count', 'refusals per bucket', 1)],
        { values: c.t, time: false, label: 'seconds from start' }));
    }
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
