package apidocs

// pageHTML is the reference page. It is plain HTML with its own small
// stylesheet inline, readable without CSS and on a narrow screen.
const pageHTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} {{.Version}} reference</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d232a;background:#fff}
header,main,nav{max-width:60rem;margin:0 auto;padding:0 1rem}
header{padding-top:1.5rem}
h1{font-size:1.6rem;margin:.2rem 0}
h2{font-size:1.25rem;margin-top:2.2rem;border-bottom:2px solid #d7dde3;padding-bottom:.2rem}
h3{font-size:1.05rem;margin:1.6rem 0 .3rem;font-family:ui-monospace,monospace;overflow-wrap:anywhere}
.method{display:inline-block;min-width:4.2rem;font-weight:700}
.get{color:#1a6b37}.post{color:#1d4f91}.put,.patch{color:#8a5300}.delete{color:#a4262c}
table{border-collapse:collapse;width:100%;margin:.4rem 0;font-size:.92rem}
th,td{text-align:left;vertical-align:top;padding:.25rem .5rem;border-bottom:1px solid #e4e8ec}
th{background:#f3f5f7}
code,.mono{font-family:ui-monospace,monospace;font-size:.9em;overflow-wrap:anywhere}
.note{color:#4d5863}
nav ul{columns:2 18rem;padding-left:1.2rem}
section.op{border-left:3px solid #d7dde3;padding-left:.8rem}
</style>
</head>
<body>
<header>
<h1>{{.Title}} <small>{{.Version}}</small></h1>
<p class="note">Every route of <code>/v1</code>, rendered from <a href="/v1/openapi.json">/v1/openapi.json</a>. Send the application's API key in <code>x-api-key</code> unless a route says it needs none; errors are <code>{"error": {"code", "message", "field"}}</code> with the status shown.</p>
</header>
<nav aria-label="Routes">
<h2>Routes</h2>
<ul>{{range .Groups}}{{range .Operations}}
<li><a href="#{{.Anchor}}"><span class="mono">{{.Method}} {{.Path}}</span></a></li>{{end}}{{end}}
</ul>
</nav>
<main>
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
</section>
{{end}}{{end}}
</main>
</body>
</html>
`
