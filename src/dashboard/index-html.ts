/** The dashboard's one page: the app mounts into #app; everything it loads comes from this server. */
export const INDEX_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Keyward dashboard</title>
<link rel="icon" href="/dashboard/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/dashboard/assets/app.css">
<script type="module" src="/dashboard/assets/app.js"></script>
</head>
<body>
<div id="app"><p class="boot">Loading the dashboard…</p></div>
<noscript>The Keyward dashboard needs JavaScript.</noscript>
</body>
</html>
`;
