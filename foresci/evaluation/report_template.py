# ruff: noqa: E501  (HTML template text; breaking its lines would change the markup)
"""The Jinja2 template of the static HTML report (inline CSS and JS; images as data URIs)."""

from __future__ import annotations

REPORT_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>foresci report</title>
<link rel="icon" href="data:,">
<style>
 body { font-family: system-ui, -apple-system, Segoe UI, sans-serif; margin: 2rem auto; max-width: 1200px;
        color: #1d2733; padding: 0 1rem; }
 h1 { margin-bottom: .2rem; } h2 { border-bottom: 2px solid #dde3ea; padding-bottom: .2rem; margin-top: 2.2rem; }
 .meta { color: #5b6b7c; font-size: .9rem; }
 table { border-collapse: collapse; margin: .6rem 0 1rem; font-size: .88rem; }
 th, td { border: 1px solid #dde3ea; padding: .3rem .55rem; text-align: right; }
 th { background: #f3f6f9; } td.label, th.label { text-align: left; }
 td.leader { font-weight: 700; background: #eef8ee; }
 .ci { color: #7b8a99; font-size: .75rem; display: block; }
 .na { color: #9aa7b4; }
 .note { background: #fff8e6; border-left: 4px solid #f0b429; padding: .5rem .8rem; font-size: .88rem; }
 img { max-width: 100%; border: 1px solid #eef1f4; margin: .4rem .6rem .4rem 0; }
 details.drill { border: 1px solid #dde3ea; border-radius: 6px; margin: .35rem 0; padding: .3rem .6rem; }
 details.drill > summary { cursor: pointer; font-size: .9rem; }
 details.drill pre { white-space: pre-wrap; background: #f7f9fb; padding: .6rem; font-size: .82rem; }
 .pill { display: inline-block; background: #eef1f4; border-radius: 10px; padding: 0 .5rem; margin-left: .3rem;
         font-size: .78rem; }
 .err { color: #b42318; }
 #drill-filter { padding: .35rem .5rem; width: 22rem; }
 details.transcript { border-left: 3px solid #b8c4d0; margin: .5rem 0; padding-left: .6rem; }
 details.transcript .event { border-top: 1px dashed #dde3ea; padding: .3rem 0; font-size: .85rem; }
 details.transcript code.fields { display: block; color: #4a5a6a; font-size: .78rem; word-break: break-all; }
 details.transcript .role { font-size: .75rem; text-transform: uppercase; color: #5b6b7c; }
</style>
</head>
<body>
<h1>foresci evaluation report</h1>
<p class="meta">Runs: {{ runs | join(", ") }} &middot; release: {{ release }} &middot;
 evaluation: <span id="evaluation-kind">{{ "offline (deterministic metrics and *_offline approximations)" if evaluation == "offline" else evaluation }}</span>
 &middot; {{ counts.scored }} scored rows, {{ counts.answer_errors }} answer errors,
 {{ counts.missing_target }} without hidden target{% if counts.judge_errors %}, judge errors:
 {% for name, n in counts.judge_errors.items() %}{{ name }} {{ n }} {% endfor %}{% endif %}</p>
{% if counts.citations_not_checked %}<p class="err">{{ counts.citations_not_checked }} answer(s) with support: citations not checked and Trace, Trace~off not computed, for want of a KB to check them against (give <code>foresci eval RUN --kb KB</code>)</p>{% endif %}
{% for note in notes %}<p class="note">{{ note }}</p>{% endfor %}
{% if any_offline %}<p class="note">{{ "Offline evaluation" if offline else "Offline rows (the evaluation column says which)" }}: <b>Pers</b> needs an LLM judge and is unavailable;
 Fact~off, FTA~off and Trace~off are embedding/citation approximations under their own names, not the judged
 metrics. FTA of planning and venue tasks is deterministic (ranking-aware) and is the real metric.</p>{% endif %}

<h2 id="leaderboard-all">Leaderboard (all task families)</h2>
<p class="meta">Mean over tasks with the 95 % bootstrap interval; bold = leader of the column (among the
 entries scored on at least half of the column's largest task count; &deg; = fewer, never the leader; no
 leader when all show the same mean); p = paired bootstrap p-value that the leader is not better; &ndash; = not applicable (e.g. Trace without a support artifact).</p>
{{ table(overall, "leaderboard") }}

<details id="metric-legend"><summary class="meta">What each column measures</summary>
<table><tr><th class="label">column</th><th class="label">name</th><th class="label">kind</th><th class="label">definition</th></tr>
{% for name, info in metric_info.items() %}<tr><td class="label">{{ info.label }}</td><td class="label">{{ name }}</td>
<td class="label">{{ info.kind }}</td><td class="label">{{ info.description }}</td></tr>{% endfor %}</table></details>

<h2 id="leaderboard-backbone">Methods by backbone</h2>
<p class="meta">ForeSci Table 2 layout (means over all task families; &ndash; = not applicable or not run).</p>
<table id="backbone-pivot"><tr><th class="label" rowspan="2">method</th>
{% for b in pivot.backbones %}<th colspan="{{ pivot.metrics | length }}">{{ b }}</th>{% endfor %}</tr>
<tr>{% for b in pivot.backbones %}{% for m in pivot.metrics %}<th>{{ labels.get(m, m) }}</th>{% endfor %}{% endfor %}</tr>
{% for row in pivot.rows %}<tr><td class="label">{{ row.method }}</td>
{% for b in pivot.backbones %}{% for m in pivot.metrics %}<td>{{ row.cells[b][m] if b in row.cells else "–" }}</td>{% endfor %}{% endfor %}</tr>
{% endfor %}</table>

{% if paired %}<h2 id="paired">Side by side: one method in two runs, labels or versions</h2>
<p class="meta">Each row pairs two entries of one method (same backbone and mode) on the tasks both answered:
 A's and B's means there, the mean of the paired differences (B &minus; A), and on how many of those tasks B
 scored higher or lower.</p>
<table id="paired-table"><tr><th class="label">method &middot; backbone</th><th class="label">A</th>
<th class="label">B</th><th class="label">metric</th><th>n</th><th>A</th><th>B</th><th>B &minus; A</th>
<th>B better</th><th>B worse</th></tr>
{% for p in paired %}<tr><td class="label">{{ base_method(p.a) }}{{ " · " ~ p.model if p.model else "" }}{{ " (name-only)" if p.mode == "name_only" else "" }}</td>
<td class="label">{{ p.a }}</td><td class="label">{{ p.b }}</td><td class="label">{{ labels.get(p.metric, p.metric) }}</td>
<td>{{ p.n }}</td><td>{{ fmt(p.a_mean) }}</td><td>{{ fmt(p.b_mean) }}</td><td>{{ "%+.3f" | format(p.mean_difference) }}</td>
<td>{{ p.b_better }}</td><td>{{ p.b_worse }}</td></tr>
{% endfor %}</table>{% endif %}

<h2 id="leaderboard-family">Leaderboard per family</h2>
{% for family, entries in per_family.items() %}
<h3>{{ family.replace("_", " ") }}</h3>
{{ table(entries, "leaderboard-" ~ family) }}
{% endfor %}

<h2 id="diagnostics">Diagnostics</h2>
<p class="meta">Low-score rows are the rank-selected bottom {{ (low.fraction * 100) | round | int }} % of each
 metric (metrics used: {% for k, v in low.metrics_used.items() %}{{ k }} = {{ v }}{{ "; " if not loop.last }}{% endfor %}).</p>
{% for name, uri in heatmaps %}<img alt="{{ name }}" src="{{ uri }}">{% endfor %}
<h3>Correlations among Fact, FTA, Pers</h3>
<table id="correlations"><tr><th class="label">pair</th><th>n</th><th>Spearman</th><th>Pearson</th></tr>
{% for row in correlations %}<tr><td class="label">{{ row.pair }}{% if row.metrics_used %} <span class="meta">({{ row.metrics_used | join(", ") }})</span>{% endif %}</td><td>{{ row.n }}</td>
<td>{{ fmt(row.spearman) }}</td><td>{{ fmt(row.pearson) }}</td></tr>{% endfor %}</table>
<h3>Fact&ndash;FTA conflicts (|gap| &ge; {{ conflicts.gap }})</h3>
<p>{{ conflicts.count }} rows: {{ conflicts.high_fta_low_fact }} high-FTA/low-Fact,
 {{ conflicts.high_fact_low_fta }} high-Fact/low-FTA.</p>
{% if conflicts.cases %}<table id="conflicts"><tr><th class="label">task</th><th class="label">method</th>
<th>Fact</th><th>FTA</th><th class="label">metrics</th></tr>
{% for c in conflicts.cases[:20] %}<tr><td class="label">{{ c.task_id }}</td><td class="label">{{ c.method }}
{{ c.model or "" }}</td><td>{{ fmt(c.fact) }}</td><td>{{ fmt(c.fta) }}</td><td class="label">{{ c.metrics }}</td></tr>
{% endfor %}</table>{% endif %}
<h3>Foresight lift</h3>
{% if lift %}<table id="lift"><tr><th class="label">metric</th><th class="label">method</th><th>vs persistence</th>
<th>n</th><th>vs name-only</th><th>n</th></tr>
{% for row in lift %}<tr><td class="label">{{ row.metric }} <span class="meta">({{ row.metrics_used | join(", ") }})</span></td><td class="label">{{ row.method }}
{{ row.model or "" }}</td><td>{{ fmt(row.vs_persistence) }}</td><td>{{ row.n_persistence or "" }}</td>
<td>{{ fmt(row.vs_name_only) }}</td><td>{{ row.n_name_only or "" }}</td></tr>{% endfor %}</table>
{% else %}<p class="meta">No persistence or name-only rows to compare against.</p>{% endif %}

<h2 id="forecasts">Forecast questions</h2>
{% if forecast %}<table id="forecast-table"><tr><th class="label">method</th><th>numeric n</th><th>CRPS (log)</th>
<th>|z|&lt;1</th><th>|z|&lt;2</th><th>|z|&lt;3</th><th>&times;3</th><th>&times;10</th><th>CRPS skill</th>
<th>binary n</th><th>Brier</th><th>Brier (difficulty-adj.)</th><th>Brier skill</th>
<th>CRPS skill vs reference</th><th>Brier skill vs reference</th></tr>
{% for e in forecast %}<tr><td class="label">{{ e.label }}</td><td>{{ e.n_numeric or 0 }}</td>
<td>{{ cell(e.metrics.crps) }}</td>
{% for level in ["1", "2", "3"] %}<td>{{ fmt(e.coverage[level].observed) if e.coverage else "–" }}</td>{% endfor %}
<td>{{ fmt(e.within_x3) }}</td><td>{{ fmt(e.within_x10) }}</td><td>{{ fmt(e.crps_skill) }}</td>
<td>{{ e.n_binary or 0 }}</td><td>{{ cell(e.metrics.brier) }}</td><td>{{ fmt(e.brier_adjusted) }}</td><td>{{ fmt(e.brier_skill) }}</td>
<td>{{ fmt(e.skill_vs_reference.crps) if e.skill_vs_reference else "–" }}</td>
<td>{{ fmt(e.skill_vs_reference.brier) if e.skill_vs_reference else "–" }}</td></tr>{% endfor %}
</table>
<p class="meta">Nominal coverage: 0.683 / 0.954 / 0.997. CRPS of the Gaussian fitted to p10/p50/p90 in
 log10(y+1) space (lower is better); "CRPS skill" and "Brier skill" are against each question's naive
 baseline (its pre-cutoff count or base rate); "vs reference" is 1 &minus; mean score / the reference
 method's mean score on the questions both answered (reference: {{ forecast[0].skill_vs_reference.reference if forecast[0].skill_vs_reference else "none in these runs" }});
 the difficulty-adjusted Brier is the fitted a<sub>i</sub> + b<sub>j</sub> of brier<sub>ij</sub> = a<sub>i</sub> + b<sub>j</sub> + u<sub>ij</sub> on the average question (needs two or more methods).</p>
{% for name, uri in forecast_plots %}<img alt="{{ name }}" src="{{ uri }}">{% endfor %}
{% else %}<p class="meta">No forecast answers in these runs.</p>{% endif %}

{% if emergence %}<h2 id="emergence">Concept emergence: bulk link prediction</h2>
<table id="emergence-table"><tr>{% for name in emergence.header %}<th{% if loop.index <= 3 %} class="label"{% endif %}>{{ name }}</th>{% endfor %}</tr>
{% for row in emergence.rows %}<tr>{% for text in row %}<td{% if loop.index <= 3 %} class="label"{% endif %}>{{ text }}</td>{% endfor %}</tr>{% endfor %}
</table>
<p class="meta">A pair of concepts unconnected at the cutoff is positive when the two co-occur in at least
 k window papers; AUC and precision@k with 95 % bootstrap intervals over the pairs; pairs a method left
 unscored rank last.</p>{% endif %}{% if emergence_note %}<p class="meta">{{ emergence_note }}</p>{% endif %}{% if taxonomy_plots or taxonomy_notes %}<h2 id="taxonomy">Taxonomy growth</h2>
{% for name, uri in taxonomy_plots %}<img alt="{{ name }}" src="{{ uri }}">{% endfor %}
{% for note in taxonomy_notes %}<p class="meta">{{ note }}</p>{% endfor %}{% endif %}

<h2 id="drilldown">Per-task drill-down</h2>
<p><input id="drill-filter" type="search" placeholder="filter by task, family or method">
 <span class="meta" id="drill-count">{{ rows | length }} rows{% if truncated %} (first {{ rows | length }}
 of {{ truncated }}){% endif %}</span></p>
<div id="drills">
{% for r in rows %}<details class="drill" data-search="{{ (r.task_id ~ ' ' ~ r.family ~ ' ' ~ r.label) | lower }}"
 id="row-{{ loop.index }}"><summary><b>{{ r.task_id }}</b> &middot; {{ r.family.replace("_", " ") }} &middot;
 {{ r.label }}{% for name, value in r.headline %}<span class="pill">{{ name }} {{ value }}</span>{% endfor %}
 {% if r.status != "ok" %}<span class="pill err">{{ r.status }}</span>{% endif %}{% if r.contract and r.contract != "ok" %}<span class="pill err">contract {{ r.contract }}</span>{% endif %}<span class="pill">{{ r.evaluation }}</span></summary>
{% if r.title %}<p><b>{{ r.title }}</b></p>{% endif %}{% if r.question %}<p>{{ r.question }}</p>{% endif %}
{% if r.error %}<p class="err">{{ r.error }}</p>{% endif %}
{% if r.contract_notes %}<h4>Task contract</h4><ul>{% for note in r.contract_notes %}<li>{{ note }}</li>{% endfor %}</ul>{% endif %}
{% if r.evidence_none %}<p class="err">evidence: none (the method read no paper)</p>{% endif %}
{% if r.citations %}<p class="meta">{{ r.citations }}</p>{% endif %}
<h4>Answer</h4><pre>{{ r.text or "(no text)" }}</pre>
{% if r.evidence %}<h4>Evidence</h4><ul>{% for item in r.evidence %}<li>{{ item.claim }}
 <span class="meta">[{{ item.paper_ids | join(", ") }}]</span></li>{% endfor %}</ul>{% endif %}
<h4>Scores</h4><table class="scores"><tr><th class="label">metric</th><th>value</th><th>P</th><th>R</th>
<th>variance</th><th class="label">note</th></tr>
{% for m in r.metrics %}<tr><td class="label">{{ m.name }}</td><td>{{ fmt(m.value) }}</td><td>{{ fmt(m.precision) }}</td>
<td>{{ fmt(m.recall) }}</td><td>{{ fmt(m.variance) }}</td><td class="label">{{ m.note }}</td></tr>{% endfor %}
</table>
{% for title, tr in r.transcripts %}<details class="transcript" data-unit="{{ tr.unit }}" data-transcript="{{ tr.id }}">
<summary>{{ title }} <span class="meta">&middot; {{ tr.summary }}</span></summary>
{% for e in tr.events %}<div class="event" data-kind="{{ e.kind }}"><b>{{ e.kind }}</b> <span class="meta">at {{ e.t_s }} s</span>
{% if e.fields %}<code class="fields">{{ e.fields }}</code>{% endif %}
{% if e.messages %}<details class="messages"><summary>{{ e.messages | length }} message(s) sent</summary>
{% for m in e.messages %}<div class="message" data-role="{{ m.role }}"><span class="role">{{ m.role }}</span><pre class="content">{{ m.content }}</pre>{% if m.extra %}<code class="fields">{{ m.extra }}</code>{% endif %}</div>{% endfor %}</details>{% endif %}
{% if e.reply is not none %}<div class="reply"><span class="role">{{ "cached reply" if e.cached else "model reply" }}</span><pre class="reply">{{ e.reply }}</pre></div>{% endif %}
</div>{% endfor %}</details>{% endfor %}
</details>
{% endfor %}</div>
<script>
(function () {
  var input = document.getElementById("drill-filter");
  var count = document.getElementById("drill-count");
  var rows = document.querySelectorAll("#drills details.drill");
  input.addEventListener("input", function () {
    var query = input.value.trim().toLowerCase();
    var shown = 0;
    rows.forEach(function (row) {
      var visible = !query || row.getAttribute("data-search").indexOf(query) !== -1;
      row.style.display = visible ? "" : "none";
      if (visible) { shown += 1; }
    });
    count.textContent = shown + " rows shown";
  });
})();
</script>
</body>
</html>
"""

TABLE_MACRO = """{% macro table(entries, table_id) %}
<table id="{{ table_id }}" class="leaderboard"><tr><th class="label">method &middot; backbone</th><th>n</th>
<th title="answers re-asked to meet the task contract, or still breaking it (scored as given)">repair rate</th>{% if mixed %}<th class="label">evaluation</th>{% endif %}
{% for name in metric_names %}<th>{{ labels.get(name, name) }}</th>{% endfor %}</tr>
{% for e in entries %}<tr data-entry="{{ e.label }}" data-family="{{ e.family }}"><td class="label">{{ e.label }}{% if e.contamination_risk_rows %} <span class="pill err" title="backbone knowledge cutoff after the task cutoff (or unknown)">contamination risk: {{ e.contamination_risk_rows }} rows</span>{% endif %}</td>
<td>{{ e.n_rows }}</td>
<td class="repair" data-repair-rate="{{ '%.3f' % e.contract.rate if e.contract else '' }}">{% if e.contract %}{{ '%.0f' % (100 * e.contract.rate) }}&nbsp;%<span class="ci">{{ e.contract.repaired }} repaired, {{ e.contract.invalid }} invalid</span>{% else %}&ndash;{% endif %}</td>{% if mixed %}<td class="label">{{ e.evaluation }}</td>{% endif %}
{% for name in metric_names %}{% set c = e.metrics.get(name) %}{% if c %}<td class="{{ 'leader' if c.leader else 'low-coverage' if c.low_coverage }}"
 data-metric="{{ name }}" data-value="{{ '%.3f' % c.mean }}"{% if c.low_coverage %} title="scored on too few of the column's tasks to lead"{% endif %}>{{ '%.3f' % c.mean }}{% if c.low_coverage %} <span class="mark">&deg;</span>{% endif %}<span class="ci">[{{ '%.3f' % c.low }},
 {{ '%.3f' % c.high }}] n={{ c.n }}{% if c.p_vs_leader is defined %} p={{ '%.3f' % c.p_vs_leader }}{% endif %}
 {% if c.variance is not none %} var={{ '%.4f' % c.variance }}{% endif %}</span></td>{% else %}<td class="na"
 data-metric="{{ name }}" data-value="">&ndash;</td>{% endif %}{% endfor %}</tr>
{% endfor %}</table>
{% endmacro %}"""
