package report

import (
	"fmt"
	"html/template"
	"io"
	"strings"

	"covey/agent"
	"covey/internal/plural"
)

// writeHTML renders the report as one self-contained page: no network, no
// external scripts, fonts or images. The timeline has one row per agent,
// nested under its parent; spans are placed in percent of the session's
// span, so the page fits a laptop and a phone alike.
func writeHTML(w io.Writer, r *Report) error {
	return page.Execute(w, htmlView{Report: r})
}

type htmlView struct{ *Report }

// Span in percent of the session.
func (v htmlView) pct(s Seconds) string {
	total := float64(v.Session.Span)
	if total <= 0 {
		return "0"
	}
	return fmt.Sprintf("%.3f", 100*float64(s)/total)
}

func (v htmlView) SpanStyle(s Span) template.CSS {
	width := float64(s.End - s.Start)
	total := float64(v.Session.Span)
	if total > 0 {
		width = 100 * width / total
	}
	return template.CSS(fmt.Sprintf("left:%s%%;width:%.3f%%", v.pct(s.Start), max(width, 0.4))) //nolint:gosec // numbers alone
}

func (v htmlView) MarkStyle(m Mark) template.CSS {
	return template.CSS("left:" + v.pct(m.At) + "%") //nolint:gosec // a number alone
}

func (v htmlView) Indent(a *Agent) template.CSS {
	return template.CSS(fmt.Sprintf("padding-left:%.1fem", 0.4+1.1*float64(max(a.Depth-1, 0)))) //nolint:gosec // a number alone
}

var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"dur":    dur,
	"tokens": agent.FormatTokens,
	"usage":  usageText,
	"files":  filesText,
	"cost": func(c float64) string {
		if c <= 0 {
			return "-"
		}
		return fmt.Sprintf("$%.4f", c)
	},
	"child": func(a *Agent) bool { return a.ID != agent.MainAgentID },
	"lower": strings.ToLower,
	"count": plural.Count,
}).Parse(pageHTML))

const pageHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Crew report · {{.Session.ID}}</title>
<style>
:root{--bg:#fbfbfa;--fg:#1d1f21;--muted:#6b7075;--line:#e3e4e6;--run:#2f9e6f;--pause:#d99a1f;--bg2:#4f7fd1;--fail:#d1453b;--hit:#e07b1f}
@media (prefers-color-scheme:dark){:root{--bg:#16181b;--fg:#e6e6e6;--muted:#9aa0a6;--line:#2c3035}}
*{box-sizing:border-box}
body{margin:0;padding:1.2rem;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif}
h1{font-size:1.25rem;margin:0 0 .3rem}
h2{font-size:1.05rem;margin:1.6rem 0 .5rem}
.meta{color:var(--muted);margin:0 0 1rem;word-break:break-all}
.totals{display:flex;flex-wrap:wrap;gap:.5rem 1.4rem;margin:0 0 1rem;padding:0;list-style:none}
.totals b{display:block;font-size:1.1rem}
.timeline{border:1px solid var(--line);border-radius:6px;padding:.4rem .6rem}
.tl-row{display:grid;grid-template-columns:minmax(8rem,14rem) 1fr;align-items:center;gap:.6rem;min-height:1.7rem;border-bottom:1px dashed var(--line)}
.tl-row:last-child{border-bottom:0}
.tl-name{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.tl-name small{color:var(--muted)}
.tl-track{position:relative;height:1rem;background:repeating-linear-gradient(90deg,transparent 0 calc(10% - 1px),var(--line) calc(10% - 1px) 10%)}
.span{position:absolute;top:.15rem;height:.7rem;border-radius:3px;background:var(--run)}
.span.paused{background:var(--pause)}
.span.approval,.span.question{background:transparent;border:1px dashed var(--pause);height:.7rem}
.span.background{background:repeating-linear-gradient(45deg,var(--bg2) 0 4px,#7aa0e0 4px 8px)}
.mark{position:absolute;top:0;width:2px;height:1rem;background:var(--fg);opacity:.55}
.mark.failed,.mark.error{background:var(--fail);opacity:1;width:3px}
.mark.collision{background:var(--hit);opacity:1;width:3px}
.legend{display:flex;flex-wrap:wrap;gap:.3rem 1rem;color:var(--muted);font-size:.85rem;margin:.4rem 0 0}
.legend i{display:inline-block;width:.9rem;height:.6rem;border-radius:2px;margin-right:.3rem;vertical-align:middle}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{padding:.3rem .5rem;border-bottom:1px solid var(--line);text-align:left;white-space:nowrap}
td.num,th.num{text-align:right}
td .task{white-space:normal;color:var(--muted);font-size:.8rem;min-width:10rem;max-width:18rem}
.state-failed,.state-cancelled{color:var(--fail)}
.state-done{color:var(--run)}
details{margin:.3rem 0}
summary{cursor:pointer}
code{font-size:.85em}
@media (max-width:700px){body{padding:.7rem}.tl-row{grid-template-columns:1fr;gap:.1rem;padding:.2rem 0}}
</style>
</head>
<body>
<h1>Crew report</h1>
<p class="meta">session {{.Session.ID}} · {{.Session.Workspace}} · {{.Session.Model}} · started {{.Session.Started.Format "2006-01-02 15:04"}}</p>
<ul class="totals">
<li><b>{{.Session.UserTurns}}</b>user turns</li>
<li><b>{{.Session.Subagents}}</b>subagents</li>
<li><b>{{dur .Session.Span}}</b>span</li>
<li><b>{{tokens .Session.Totals.In}} / {{tokens .Session.Totals.Out}}</b>tokens in / out</li>
{{if .Session.Totals.CacheRead}}<li><b>{{tokens .Session.Totals.CacheRead}}</b>cache reads</li>{{end}}
{{if .Session.Priced}}<li><b>{{cost .Session.Cost}}</b>cost</li>{{end}}
</ul>
<h2>Timeline</h2>
{{if .Timed}}
<div class="timeline" id="timeline">
{{range .Agents}}<div class="tl-row" data-agent="{{.ID}}">
<div class="tl-name" style="{{$.Indent .}}" title="{{.Name}} · {{.Type}} · {{.State}}">{{if child .}}└ {{end}}{{.Name}} <small>{{.Type}}</small></div>
<div class="tl-track">{{range .Spans}}<div class="span {{.Kind}}" style="{{$.SpanStyle .}}" title="{{.Kind}} {{dur .Start}} → {{dur .End}}"></div>{{end}}{{range .Marks}}<div class="mark {{.Kind}}" style="{{$.MarkStyle .}}" title="{{.Kind}}: {{.Label}}"></div>{{end}}</div>
</div>
{{end}}</div>
<div class="legend"><span><i style="background:var(--run)"></i>running</span><span><i style="background:var(--pause)"></i>paused</span><span><i style="background:var(--bg2)"></i>background</span><span><i style="background:var(--fg);opacity:.55"></i>tool call</span><span><i style="background:var(--fail)"></i>failed or error</span><span><i style="background:var(--hit)"></i>collision</span><span><i style="border:1px dashed var(--pause)"></i>waiting for your answer</span></div>
{{else}}<p class="meta">This session file was written before covey timed its events: no timeline.</p>{{end}}
<h2>Agents</h2>
<div class="scroll"><table id="agents">
<thead><tr><th>agent</th><th>type</th><th>model</th><th>state</th><th class="num">turns</th><th class="num">tools</th><th class="num">tokens in/out</th><th class="num">cache read</th><th class="num">cost</th><th class="num">elapsed</th><th class="num">paused</th><th class="num">waited</th><th>files</th><th>review</th></tr></thead>
<tbody>
{{range .Agents}}<tr data-agent="{{.ID}}">
<td style="{{$.Indent .}}">{{.Name}}{{if .Task}}<div class="task">{{.Task}}</div>{{end}}</td><td>{{.Type}}</td><td>{{.Model}}</td><td class="state-{{lower .State}}">{{.State}}</td>
<td class="num">{{.Turns}}</td><td class="num">{{.ToolCalls}}{{if .FailedCalls}} ({{.FailedCalls}} failed){{end}}</td>
<td class="num">{{tokens .Usage.In}}/{{tokens .Usage.Out}}</td><td class="num">{{tokens .Usage.CacheRead}}</td><td class="num">{{cost .Cost}}</td>
<td class="num">{{dur .Elapsed}}</td><td class="num">{{dur .Paused}}</td><td class="num">{{dur .Waited}}{{if .Asked}} ({{.Asked}}){{end}}</td><td>{{files .}}</td><td>{{.Review}}</td>
</tr>{{end}}
</tbody></table></div>
<h2>Details</h2>
{{range .Agents}}{{if child .}}<details data-agent="{{.ID}}"><summary><b>{{.Name}}</b> ({{.ID}}) · {{.State}}{{if .Collisions}} · ⚠ {{count (len .Collisions) "collision"}}{{end}}</summary>
{{if .Summary}}<p>{{.Summary}}</p>{{end}}{{if .Error}}<p class="state-failed">{{.Error}}</p>{{end}}
<ul>{{range .Files}}<li><code>{{.Path}}</code> {{.Status}} +{{.Added}} −{{.Removed}}</li>{{end}}{{if .MoreFiles}}<li>… {{.MoreFiles}} more files</li>{{end}}
{{range .Collisions}}<li>⚠ {{.}}</li>{{end}}</ul>
<p class="meta">transcript: <code>{{.Transcript}}</code></p>
</details>{{end}}{{end}}
<p class="meta">Transcripts are not inlined: <code>covey --resume {{.Session.ID}}</code> opens the session with every pane; <code>{{.Session.Transcript}}</code> holds it whole.</p>
<script>
// Hovering a timeline row lights its table row.
document.querySelectorAll(".tl-row").forEach(function (row) {
  var id = row.getAttribute("data-agent");
  var tr = document.querySelector('#agents tr[data-agent="' + id + '"]');
  if (!tr) return;
  row.addEventListener("mouseenter", function () { tr.style.outline = "2px solid var(--bg2)"; });
  row.addEventListener("mouseleave", function () { tr.style.outline = ""; });
});
</script>
</body>
</html>
`
