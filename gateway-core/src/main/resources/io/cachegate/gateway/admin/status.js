// The status page: charts of GET /admin/series (points the gateway samples every few seconds) and the replica
// table of GET /admin/stats, refreshed every 2 s. With server.admin_token set, both need the token: the page asks
// for it once and keeps it in sessionStorage (this tab only). No build step; uPlot is served from the jar.
(function () {
  'use strict';
  var REFRESH_MS = 2000;
  var COLORS = ['#2e86c1', '#28b463', '#c0392b', '#7f8c8d', '#8e44ad', '#d68910', '#17a589', '#cb4335'];
  var charts = {};

  function headers() {
    var token = sessionStorage.getItem('cachegate-admin-token');
    return token ? { Authorization: 'Bearer ' + token } : {};
  }

  function getJson(path) {
    return fetch(path, { headers: headers(), cache: 'no-store' }).then(function (r) {
      if (r.status === 401) {
        document.getElementById('login').style.display = 'block';
        throw new Error('this page needs the admin token');
      }
      if (!r.ok) { throw new Error(path + ': HTTP ' + r.status); }
      return r.json();
    });
  }

  // One uPlot chart per element; rebuilt when its series (e.g. the traffic classes) change.
  function draw(id, points, series) {
    var el = document.getElementById(id);
    var names = series.map(function (s) { return s.label; }).join('|');
    var data = [points.map(function (p) { return p.t / 1000; })];
    series.forEach(function (s) { data.push(points.map(s.value)); });
    var chart = charts[id];
    if (!chart || chart.names !== names) {
      if (chart) { chart.plot.destroy(); }
      var opts = {
        width: Math.max(300, el.clientWidth || 520), height: 180,
        series: [{}].concat(series.map(function (s, i) {
          return { label: s.label, stroke: COLORS[i % COLORS.length], width: 1.5 };
        })),
        axes: [{}, { size: 56 }],
        scales: { x: { time: true } }
      };
      chart = charts[id] = { names: names, plot: new uPlot(opts, data, el) };
    } else {
      chart.plot.setData(data);
    }
    el.dataset.points = String(points.length);
    el.dataset.last = JSON.stringify(data.slice(1).map(function (d) { return d.length ? d[d.length - 1] : null; }));
  }

  function keysOf(points, field) {
    var seen = {};
    points.forEach(function (p) { Object.keys(p[field] || {}).forEach(function (k) { seen[k] = true; }); });
    return Object.keys(seen).sort();
  }

  function field(name) { return function (p) { return p[name]; }; }

  function render(series, stats) {
    var points = series.points;
    draw('traffic', points, [
      { label: 'exact hits', value: field('exactHits') },
      { label: 'semantic hits', value: field('semanticHits') },
      { label: 'misses', value: field('misses') },
      { label: 'bypasses', value: field('bypasses') },
      { label: 'all requests', value: field('requests') }
    ]);
    draw('ratio', points, [{ label: 'hit ratio', value: field('hitRatio') }]);
    draw('latency', points, [
      { label: 'hit p50', value: function (p) { return p.latencyMillis.hit.p50; } },
      { label: 'hit p99', value: function (p) { return p.latencyMillis.hit.p99; } },
      { label: 'miss p50', value: function (p) { return p.latencyMillis.miss.p50; } },
      { label: 'miss p99', value: function (p) { return p.latencyMillis.miss.p99; } }
    ]);
    var queueSeries = [];
    keysOf(points, 'queued').forEach(function (c) {
      queueSeries.push({ label: c + ' queued', value: function (p) { return (p.queued || {})[c] || 0; } });
    });
    keysOf(points, 'rejected').forEach(function (c) {
      queueSeries.push({ label: c + ' rejected/s', value: function (p) { return (p.rejected || {})[c] || 0; } });
    });
    keysOf(points, 'tenantWaitMillis').forEach(function (t) {
      queueSeries.push({ label: t + ' wait ms', value: function (p) { return (p.tenantWaitMillis || {})[t] || 0; } });
    });
    if (queueSeries.length === 0) {
      queueSeries.push({ label: 'in flight', value: field('inFlight') });
    }
    draw('queues', points, queueSeries);
    draw('saved', points, [
      { label: 'tokens saved/s', value: field('tokensSaved') },
      { label: 'overloaded', value: field('overloaded') }
    ]);
    // Its own chart: fractions of a currency unit an hour would be a flat line beside hundreds of tokens a second.
    draw('cost', points, [{ label: 'cost saved/h', value: field('costSavedPerHour') }]);
    renderSimilarity(series.similarity || []);
    renderReplicas(stats);
    renderBudget(stats.semantic);
    var last = points.length ? points[points.length - 1] : null;
    document.getElementById('summary').textContent = (last
      ? last.requests.toFixed(1) + ' req/s · hit ratio ' + Math.round(last.hitRatio * 100) + '% · ' + last.inFlight + ' in flight'
      : 'waiting for the first sample') + ' · ' + stats.activeConnections + ' connections'
      + (stats.draining ? ' · draining' : '') + savedSummary(stats.saved) + ' · policy ' + stats.policy;
    document.body.dataset.points = String(points.length);
    document.body.dataset.lastT = last ? String(last.t) : '';
  }

  function renderSimilarity(buckets) {
    var table = document.getElementById('similarity');
    var shown = buckets.filter(function (b) { return b.le >= 0.5; });
    var max = Math.max.apply(null, [1].concat(shown.map(function (b) { return b.count; })));
    table.innerHTML = '';
    shown.forEach(function (b) {
      var row = table.insertRow();
      row.insertCell().textContent = '≤ ' + b.le.toFixed(3);
      var bar = document.createElement('div');
      bar.className = 'bar';
      bar.style.width = Math.round(200 * b.count / max) + 'px';
      row.insertCell().appendChild(bar);
      row.insertCell().textContent = String(b.count);
    });
    table.dataset.hits = String(shown.reduce(function (n, b) { return n + b.count; }, 0));
  }

  // Since the gateway started: what the hits saved, in calls, tokens, cost and upstream time.
  function savedSummary(saved) {
    if (!saved || !saved.total) {
      return '';
    }
    var t = saved.total;
    return ' · saved ' + t.calls + ' calls, ' + t.tokens + ' tokens, ' + t.cost.toFixed(4) + ' in cost, '
      + t.latencySeconds.toFixed(1) + ' s upstream';
  }

  function renderReplicas(stats) {
    var table = document.getElementById('replicas');
    table.innerHTML = '<tr><th>backend</th><th>replica</th><th>state</th><th>in flight</th><th>tokens</th></tr>';
    Object.keys(stats.replicas || {}).forEach(function (backend) {
      stats.replicas[backend].forEach(function (r) {
        var row = table.insertRow();
        row.insertCell().textContent = backend;
        row.insertCell().textContent = r.replica;
        var state = row.insertCell();
        state.textContent = r.state;
        state.className = 'state-' + r.state;
        row.insertCell().textContent = String(r.inflightRequests);
        row.insertCell().textContent = String(r.inflightTokens);
      });
    });
  }

  // Each route's audited wrong-hit rate (what was served, checked upstream), its always-valid upper bound and the
  // budget: "within" only once the audits themselves prove the rate is under it. Beside them, the class watch: how
  // many of the route's classes it keeps closed until they re-earn their opening, and its closings so far.
  function renderBudget(semantic) {
    var table = document.getElementById('budget');
    table.innerHTML = '<tr><th>route</th><th>audits</th><th>wrong</th><th>bound</th><th>budget</th>'
      + '<th>closed by the watch</th><th>closings (drift / bound) · reopened</th></tr>';
    if (!semantic) {
      return;
    }
    var routes = (semantic.verdicts || {}).byRoute || {};
    var watched = (semantic.watch || {}).byRoute || {};
    Object.keys(routes).forEach(function (route) {
      var r = routes[route];
      var row = table.insertRow();
      row.insertCell().textContent = route;
      row.insertCell().textContent = String(r.audited);
      row.insertCell().textContent = r.wrongHitRate === null ? '–' : (100 * r.wrongHitRate).toFixed(2) + '%';
      var bound = row.insertCell();
      bound.textContent = r.upperBound === null || r.upperBound === undefined ? '–'
        : '≤ ' + (100 * r.upperBound).toFixed(2) + '%';
      bound.className = r.withinBudget ? 'within' : 'over';
      row.insertCell().textContent = semantic.maxErrorRate ? (100 * semantic.maxErrorRate).toFixed(2) + '%' : 'none';
      var w = watched[route];
      var closed = row.insertCell();
      closed.textContent = !w ? '–' : w.closedNow === 0 ? 'no' : 'yes, ' + w.closedNow + ' of 20 classes';
      closed.className = w && w.closedNow > 0 ? 'over' : '';
      row.insertCell().textContent = !w ? '–'
        : (w.driftClosings + w.boundClosings) + ' (' + w.driftClosings + ' / ' + w.boundClosings + ') · '
          + w.reopenings;
    });
  }

  function refresh() {
    Promise.all([getJson('/admin/series'), getJson('/admin/stats')]).then(function (results) {
      document.getElementById('error').textContent = '';
      document.getElementById('login').style.display = 'none';
      render(results[0], results[1]);
      document.body.dataset.updates = String(Number(document.body.dataset.updates) + 1);
    }).catch(function (e) {
      document.getElementById('error').textContent = String(e.message || e);
    });
  }

  document.getElementById('login').addEventListener('submit', function (e) {
    e.preventDefault();
    sessionStorage.setItem('cachegate-admin-token', document.getElementById('token').value);
    refresh();
  });
  refresh();
  setInterval(refresh, REFRESH_MS);
})();
