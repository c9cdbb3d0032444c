/// The frame of the self-contained summary pages (`sweep.html`, `capacity.html`): the document, the style they share
/// (text, tables, plot areas, links, the `--under` line), and each page's own style after it.
enum ReportPage {
    static func html(title: String, style: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8"/>
        <title>\(MarkupText.escape(title))</title>
        <style>
        body { font: 14px/1.4 system-ui, sans-serif; color: #1d2733; margin: 24px auto; max-width: 1180px; }
        h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 24px 0 6px; } .meta { color: #566; }
        table { border-collapse: collapse; } td, th { padding: 3px 10px; border-bottom: 1px solid #dde3ea; }
        th { text-align: left; background: #f3f6f9; } td.n { text-align: right; }
        .row { display: flex; flex-wrap: wrap; gap: 12px; } figure { margin: 0; } figcaption { color: #566; font-size: 12px; }
        svg .area { fill: #fbfcfd; stroke: #c9d2dc; } svg .grid { stroke: #e7ecf1; }
        svg .tick { font-size: 11px; fill: #566; } svg .label { font-size: 12px; fill: #334; }
        svg .under { stroke: #c0262d; stroke-dasharray: 5 4; stroke-width: 1.5; fill: none; }
        a { color: #1f6fb2; }
        \(style)
        </style>
        </head>
        <body>
        \(body)</body>
        </html>

        """
    }
}
