package apidocs

// pageHTML is the reference page. It is plain HTML with its own small
// stylesheet inline and no script, readable without CSS. On a wide screen
// the routes stay in view beside the text; on a narrow one (a 390 px
// phone) they fold into a list at the top and every table stacks its
// cells, so nothing scrolls sideways.
const pageHTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{if .Searched}}Search: {{.Query}} · {{end}}{{.Title}} reference (v{{.Version}})</title>
<style>
*{box-sizing:border-box}
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d232a;background:#fff}
.layout{display:grid;grid-template-columns:19rem minmax(0,1fr);max-width:82rem;margin:0 auto}
.side{position:sticky;top:0;align-self:start;max-height:100vh;overflow-y:auto;padding:1rem;border-right:1px solid #e4e8ec;font-size:.88rem}
.side h2{font-size:.8rem;text-transform:uppercase;letter-spacing:.04em;color:#4d5863;margin:1rem 0 .2rem;border:0;padding:0}
.side ul{list-style:none;margin:0;padding:0}
.side li a{display:block;padding:.1rem 0;text-decoration:none;overflow-wrap:break-word}
.side .mono{overflow-wrap:break-word}
.side li a:hover{text-decoration:underline}
.narrow{display:none}
main{padding:0 1.2rem 3rem;min-width:0}
header{padding-top:1.2rem}
h1{font-size:1.6rem;margin:.2rem 0}
h2{font-size:1.25rem;margin-top:2.2rem;border-bottom:2px solid #d7dde3;padding-bottom:.2rem}
h3{font-size:1.05rem;margin:1.6rem 0 .3rem;font-family:ui-monospace,monospace;overflow-wrap:anywhere}
.method{display:inline-block;min-width:4.2rem;font-weight:700}
.get{color:#1a6b37}.post{color:#1d4f91}.put,.patch{color:#8a5300}.delete{color:#a4262c}
table{border-collapse:collapse;width:100%;margin:.4rem 0;font-size:.92rem}
th,td{text-align:left;vertical-align:top;padding:.25rem .5rem;border-bottom:1px solid #e4e8ec;overflow-wrap:break-word}
th{background:#f3f5f7}
caption{text-align:left}
code,.mono{font-family:ui-monospace,monospace;font-size:.9em;overflow-wrap:anywhere}
pre{background:#f6f8fa;border:1px solid #e4e8ec;padding:.6rem;white-space:pre-wrap;overflow-wrap:anywhere;font-size:.85rem;margin:.3rem 0}
.note{color:#4d5863}
section.op{border-left:3px solid #d7dde3;padding-left:.8rem}
.errors a{margin-right:.5rem}
form.search{display:flex;gap:.3rem;flex-wrap:wrap}
form.search input{flex:1 1 8rem;min-width:0;padding:.3rem;font:inherit}
form.search button{font:inherit;padding:.3rem .6rem}
.results{background:#f3f7fd;border:1px solid #c9d8ee;padding:.4rem 1rem;margin-top:1rem}
@media (max-width:56rem){
.layout{display:block}
.side{display:none}
.narrow{display:block;padding:0 1rem}
main{padding:0 1rem 2rem}
table,tbody,tr,td,caption{display:block;width:100%}
tr:has(th){display:none}
tr{border-bottom:1px solid #d7dde3;padding:.2rem 0}
td{border:0;padding:.1rem 0}
}
</style>
</head>
<body>
<div class="layout">
<nav class="side" aria-label="Routes">
{{template "search" (searchForm "q-side" .Query)}}
{{range .Groups}}<h2>{{.Name}}</h2>
<ul>{{range .Operations}}
<li><a href="#{{.Anchor}}"><span class="mono">{{.Method}} {{breakable .Path}}</span></a></li>{{end}}
</ul>
{{end}}<h2>Reference</h2>
<ul><li><a href="#errors">Errors</a></li><li><a href="/v1/openapi.json">openapi.json</a></li></ul>
</nav>
<main>
<header>
<h1>{{.Title}}</h1>
<p class="note">API reference, version {{.Version}}. Every route of <code>/v1</code>, rendered from <a href="/v1/openapi.json">/v1/openapi.json</a>. Send the application's API key in <code>x-api-key</code> unless a route says it needs none; errors are <code>{"error": {"code", "message", "field"}}</code> with the status shown (see <a href="#errors">Errors</a>). The examples are made from the document's schemas.</p>
</header>
<div class="narrow">
{{template "search" (searchForm "q-top" .Query)}}
<details><summary>All routes</summary>
<ul>{{range .Groups}}{{range .Operations}}
<li><a href="#{{.Anchor}}"><span class="mono">{{.Method}} {{.Path}}</span></a></li>{{end}}{{end}}
</ul></details>
</div>
{{if .Searched}}<section class="results" id="results" aria-live="polite">
<h2>{{len .Results}} route{{if ne (len .Results) 1}}s{{end}} match “{{.Query}}”</h2>
{{if .Results}}<ul>{{range .Results}}
<li><a href="#{{.Anchor}}"><span class="mono">{{.Method}} {{.Path}}</span></a>: {{.Summary}}</li>{{end}}
</ul>{{else}}<p>No route matches every word. Try a resource name such as <code>events</code> or a method such as <code>POST</code>.</p>{{end}}
</section>{{end}}
{{range .Groups}}<h2>{{.Name}}</h2>
{{range .Operations}}<section class="op" id="{{.Anchor}}">
<h3><span class="method {{.Method | lower}}">{{.Method}}</span> {{.Path}}</h3>
<p><strong>{{.Summary}}</strong>{{if .NoKey}} <span class="note">(no API key)</span>{{end}}</p>
{{if .Description}}<p>{{.Description}}</p>{{end}}
{{if .Parameters}}<table><caption class="note">Parameters</caption>
<tr><th scope="col">Name</th><th scope="col">In</th><th scope="col">Type</th><th scope="col">Description</th></tr>
{{range .Parameters}}<tr><td class="mono">{{.Name}}{{if .Required}} <strong>(required)</strong>{{end}}</td><td>{{.In}}</td><td>{{.Type}}</td><td>{{.Description}}</td></tr>
{{end}}</table>{{end}}
{{with .Body}}<table><caption class="note">Request body: <code>{{.ContentType}}</code>{{if .Schema}}, {{.Schema}}{{end}}{{if .Description}}. {{.Description}}{{end}}</caption>
{{if .Fields}}<tr><th scope="col">Field</th><th scope="col">Type</th><th scope="col">Description</th></tr>
{{range .Fields}}<tr><td class="mono">{{.Path}}{{if .Required}} <strong>(required)</strong>{{end}}</td><td>{{.Type}}</td><td>{{.Description}}</td></tr>
{{end}}{{end}}</table>{{end}}
<table><caption class="note">Answers</caption>
<tr><th scope="col">Status</th><th scope="col">Body</th><th scope="col">Meaning</th></tr>
{{range .Answers}}<tr><td>{{.Status}}</td><td class="mono">{{.Schema}}</td><td>{{.Description}}</td></tr>
{{end}}</table>
{{if .SharedErrors}}<p class="errors note">Errors: {{range .SharedErrors}}<a href="#{{.Anchor}}">{{.Status}}</a> {{end}}</p>{{end}}
<div class="example"><p class="note">Example request</p>
<pre><code>{{.Example.Request}}{{if not .NoKey}}
x-api-key: sk_live_...{{end}}{{if .Example.RequestBody}}
Content-Type: application/json

{{.Example.RequestBody}}{{end}}</code></pre>
{{if .Example.AnswerStatus}}<p class="note">Example answer: {{.Example.AnswerStatus}}</p>
{{if .Example.AnswerBody}}<pre><code>{{.Example.AnswerBody}}</code></pre>{{end}}{{end}}
</div>
</section>
{{end}}{{end}}
{{if .Errors}}<h2 id="errors">Errors</h2>
<p>Every error answers <code>{"error": {"code", "message", "field"}}</code>; <code>field</code> names the parameter or body field at fault where there is one.</p>
<table><caption class="note">Error answers shared by the routes</caption>
<tr><th scope="col">Status</th><th scope="col">Meaning</th></tr>
{{range .Errors}}<tr><td id="{{.Anchor}}">{{.Status}}</td><td>{{.Description}}</td></tr>
{{end}}</table>{{end}}
</main>
</div>
</body>
</html>
{{define "search"}}<form class="search" method="get" action="/docs" role="search">
<label class="note" for="{{.ID}}">Search routes</label>
<input id="{{.ID}}" name="q" type="search" value="{{.Query}}" placeholder="bookings, freeBusy, POST">
<button type="submit">Search</button>
</form>{{end}}
`
