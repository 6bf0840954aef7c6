"""The review queue in a browser (`forsy review serve`) and the static page (`forsy render`).

`app` holds the Starlette application and its safety rules, `pages` the Jinja2 templates
both share, `render` the self-contained page, `serve` the socket and the printed URL.
"""
