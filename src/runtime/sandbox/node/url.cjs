/**
 * `url`: unenv's port of Node's legacy API (parse, format, resolve, Url) with
 * the sandbox's WHATWG URL and URLSearchParams, as they were before user code ran.
 */
'use strict';
const ns = require('unenv/node/url');
const host = require('./host.cjs');
module.exports = Object.assign({}, ns.default, { URL: host.URL, URLSearchParams: host.URLSearchParams });
