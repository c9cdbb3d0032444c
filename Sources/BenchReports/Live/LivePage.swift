/// The live page (`GET /` of `--metrics-listen`): self-contained, in report.html's style, drawn by its own script from
/// `/live.json` every second: how far the run is, each metric so far and in the report interval under way, the main
/// metric's p50 and p99 over the intervals that ended as a chart, behind a mix of links each group's metrics so far, the losses by outcome and the run's settings; once the
/// run ended, how and where its folder is. The first answer carries the figures of the moment (`/live.json`'s, drawn
/// by the same script before the page shows), so a page looked at once is never blank.
enum LivePage {
    static func html(_ state: LiveFeed.State) -> String {
        // In a script, "</" would end it: JSON's own escape keeps the text the same.
        var figures = LiveJSON.render(state).replacingAll("</", with: "<\\/")
        if figures.hasSuffix("\n") { figures.removeLast() }
        return ReportPage.html(
            title: "bench — live", style: style,
            body: body.replacingAll("show(FIRST_FIGURES);", with: "show(\(figures));"))
    }

    private static let style = """
        #status { font-size: 15px; margin: 6px 0 2px; } #status.ended { color: #0b6b2f; } #status.failed { color: #c0262d; }
        .bar { height: 6px; background: #e7ecf1; border-radius: 3px; max-width: 520px; margin: 6px 0 4px; }
        .bar div { height: 6px; background: #1f6fb2; border-radius: 3px; width: 0; }
        svg .p50 { stroke: #1f6fb2; stroke-width: 2; fill: none; } svg .p99 { stroke: #d9822b; stroke-width: 2; fill: none; }
        .legend span { margin-right: 14px; } .sw { display: inline-block; width: 14px; height: 3px; vertical-align: middle; margin-right: 4px; }
        """

    private static let body = #"""
        <h1 id="title">bench — live</h1>
        <div id="status" class="meta">waiting for the run…</div>
        <div class="bar"><div id="progress"></div></div>
        <div id="counts" class="meta"></div>
        <h2>So far</h2>
        <table id="totals"><tr><th>metric</th><th>count</th><th>lost</th><th>p50</th><th>p90</th><th>p99</th><th>max</th></tr></table>
        <section id="links" hidden>
        <h2>By link</h2>
        <table id="link-totals"><tr><th>link</th><th>clients</th><th>metric</th><th>count</th><th>lost</th><th>p50</th><th>p90</th><th>p99</th><th>max</th></tr></table>
        </section>
        <h2 id="current-title">This interval</h2>
        <table id="current"><tr><th>metric</th><th>count</th><th>lost</th><th>p50</th><th>p90</th><th>p99</th><th>max</th></tr></table>
        <h2 id="chart-title">Over time</h2>
        <figure><svg id="chart" width="760" height="260" role="img" aria-label="p50 and p99 over the report intervals"></svg>
        <figcaption class="legend"><span><span class="sw" style="background:#1f6fb2"></span>p50</span>
        <span><span class="sw" style="background:#d9822b"></span>p99</span>
        <span><span class="sw" style="background:#c0262d"></span>--under (when near)</span> (one point a second, by when its messages fell due; the latest may still grow)</figcaption></figure>
        <h2>Lost, by outcome</h2>
        <div id="lost" class="meta">none</div>
        <h2>Settings</h2>
        <table id="settings"></table>
        <script>
        "use strict";
        function duration(ns) {
          if (ns === null || ns === undefined) return "–";
          if (ns < 1e3) return ns + "ns";
          if (ns < 1e6) return (ns / 1e3).toPrecision(3) + "µs";
          if (ns < 1e9) return (ns / 1e6).toPrecision(3) + "ms";
          return (ns / 1e9).toPrecision(3) + "s";
        }
        function cell(text, numeric) { const td = document.createElement("td"); td.textContent = text; if (numeric) td.className = "n"; return td; }
        function fill(table, rows) {
          while (table.rows.length > 1) table.deleteRow(1);
          for (const r of rows) {
            const tr = table.insertRow();
            tr.append(cell(r.metric), cell(r.count.toLocaleString("en"), true), cell(r.lost.toLocaleString("en"), true),
              cell(duration(r.p50_ns), true), cell(duration(r.p90_ns), true), cell(duration(r.p99_ns), true), cell(duration(r.max_ns), true));
          }
          if (rows.length === 0) { const tr = table.insertRow(); const td = cell("nothing measured yet"); td.colSpan = 7; tr.append(td); }
        }
        // Behind a mix of links: each group's metrics so far, the group named on its first row.
        function fillLinks(groups) {
          document.getElementById("links").hidden = groups.length === 0;
          const table = document.getElementById("link-totals");
          while (table.rows.length > 1) table.deleteRow(1);
          for (const g of groups) {
            const rows = g.totals.length ? g.totals : [null];
            rows.forEach((r, i) => {
              const tr = table.insertRow();
              tr.append(cell(i ? "" : g.name), cell(i ? "" : g.clients.toLocaleString("en"), true));
              if (!r) { const td = cell("nothing measured yet"); td.colSpan = 7; tr.append(td); return; }
              tr.append(cell(r.metric), cell(r.count.toLocaleString("en"), true), cell(r.lost.toLocaleString("en"), true),
                cell(duration(r.p50_ns), true), cell(duration(r.p90_ns), true), cell(duration(r.p99_ns), true), cell(duration(r.max_ns), true));
            });
          }
        }
        function svg(name, attributes, text) {
          const e = document.createElementNS("http://www.w3.org/2000/svg", name);
          for (const k in attributes) e.setAttribute(k, attributes[k]);
          if (text !== undefined) e.textContent = text;
          return e;
        }
        // A tick step of 1, 2 or 5 times a power of ten, for about `count` steps up to `max`.
        function niceStep(max, count) {
          const raw = max / count, magnitude = Math.pow(10, Math.floor(Math.log10(raw))), residual = raw / magnitude;
          return (residual <= 1 ? 1 : residual <= 2 ? 2 : residual <= 5 ? 5 : 10) * magnitude;
        }
        function chart(rows, metric, under) {
          const plot = document.getElementById("chart");
          while (plot.firstChild) plot.removeChild(plot.firstChild);
          const W = 760, H = 260, L = 64, R = 12, T = 10, B = 34;
          plot.append(svg("rect", {class: "area", x: L, y: T, width: W - L - R, height: H - T - B}));
          const points = rows.filter(r => r.metric === metric && r.p99_ns !== null);
          const xEnd = Math.max(1, ...points.map(r => r.end_s)), xStep = niceStep(xEnd, 5);
          const xMax = Math.ceil(xEnd / xStep) * xStep;
          const top = Math.max(1, ...points.map(r => r.p99_ns));
          const high = (under && under < 2 * top ? Math.max(top, under) : top) * 1.05;  // --under when it is near
          const yStep = niceStep(high, 4), yMax = Math.ceil(high / yStep) * yStep;
          const x = s => L + (W - L - R) * s / xMax, y = v => H - B - (H - T - B) * v / yMax;
          for (let v = 0; v <= yMax + yStep / 2; v += yStep) {  // 1-2-5 steps: 200µs, 400µs… not 334µs, 667µs
            plot.append(svg("line", {class: "grid", x1: L, x2: W - R, y1: y(v), y2: y(v)}));
            plot.append(svg("text", {class: "tick", x: L - 6, y: y(v) + 4, "text-anchor": "end"}, duration(Math.round(v))));
          }
          for (let s = 0; s <= xMax + xStep / 2; s += xStep) {  // the last label ends at the plot's edge, not past it
            const last = s + xStep > xMax + xStep / 2;
            plot.append(svg("text", {class: "tick", x: x(s), y: H - B + 16, "text-anchor": last ? "end" : "middle"},
              (xStep < 1 ? s.toFixed(1) : s.toFixed(0)) + "s"));
          }
          plot.append(svg("text", {class: "label", x: L + (W - L - R) / 2, y: H - 4, "text-anchor": "middle"}, metric + " by the run's time"));
          if (under && under <= yMax) plot.append(svg("line", {class: "under", x1: L, x2: W - R, y1: y(under), y2: y(under)}));
          for (const key of ["p50", "p99"]) {
            const d = points.map((r, i) => (i ? "L" : "M") + x(r.end_s).toFixed(1) + " " + y(r[key + "_ns"]).toFixed(1)).join(" ");
            if (d) plot.append(svg("path", {class: key, d: d}));
            for (const r of points) plot.append(svg("circle", {class: key, cx: x(r.end_s), cy: y(r[key + "_ns"]), r: 2.5}));
          }
        }
        function show(live) {
          const run = live.run;
          if (!run) return;
          const main = run.scenario === "roundtrip" ? "rtt" : "delivery";
          document.getElementById("title").textContent = "bench " + run.scenario + " — " + (run.target || run.transport) + " — live";
          const status = document.getElementById("status");
          const elapsed = Number(live.elapsed_s || 0);
          if (run.status === "ended") {
            status.textContent = "The run ended: " + run.ended_status + (run.folder ? ". Its folder: " + run.folder : "") + ".";
            status.className = run.ended_status === "complete" ? "ended" : "failed";
          } else {
            status.textContent = (run.status === "running" ? "Running, " + elapsed.toFixed(1) + "s in" : "Setting up: waiting for the clients")
              + " — run " + run.name + (run.number > 1 ? " (run " + run.number + " of this process)" : "");
            status.className = "";
          }
          const p = live.progress;
          if (p) {
            document.getElementById("progress").style.width = Math.min(100, 100 * p.ratio) + "%";
            const length = p.run_for_s === null
              ? p.sent.toLocaleString("en") + " of " + p.total.toLocaleString("en") + " messages sent, "
              : elapsed.toFixed(1) + "s of " + Number(p.run_for_s) + "s, " + p.sent.toLocaleString("en") + " messages sent, ";
            document.getElementById("counts").textContent = length + (live.measured || 0).toLocaleString("en") + " measured; " + p.connected.toLocaleString("en")
              + " clients connected" + (p.reconnects ? ", " + p.reconnects + " came back" : "");
          }
          fill(document.getElementById("totals"), live.totals || []);
          fillLinks(live.links || []);
          // Once the run ended, its last interval (no interval is under way any more).
          const timeline = live.timeline || [];
          const last = timeline.length ? timeline[timeline.length - 1].interval : -1;
          const over = run.status === "ended" && !(live.current || []).length;
          const current = over ? timeline.filter(row => row.interval === last) : (live.current || []);
          document.getElementById("current-title").textContent = (over ? "Last interval" : "This interval")
            + (current.length ? " (from " + Number(current[0].start_s).toFixed(1) + "s)" : "");
          fill(document.getElementById("current"), current);
          document.getElementById("chart-title").textContent = "Over time: " + main + ", second by second";
          chart((live.points && live.points.length ? live.points : live.timeline) || [], main, run.under_ns);
          const lost = Object.entries(live.lost || {});
          document.getElementById("lost").textContent = lost.length ? lost.map(([k, v]) => k + ": " + v.toLocaleString("en")).join(", ") : "none";
          const settings = document.getElementById("settings");
          while (settings.rows.length) settings.deleteRow(0);
          for (const [k, v] of live.settings || []) { const tr = settings.insertRow(); tr.append(cell(k), cell(v)); }
        }
        let ended = false;
        async function poll() {
          try {
            const response = await fetch("live.json", {cache: "no-store"});
            const live = await response.json();
            show(live);
            ended = Boolean(live.run && live.run.status === "ended");
          } catch (e) {
            if (ended) return;  // the run's process is gone: the page keeps what it showed last
            document.getElementById("status").textContent = "The run cannot be reached (" + e + "); it may have ended.";
          }
          setTimeout(poll, 1000);  // a capacity search's next run may follow
        }
        show(FIRST_FIGURES);
        setTimeout(poll, 1000);
        </script>

        """#
}
