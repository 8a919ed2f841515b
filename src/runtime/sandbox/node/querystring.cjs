/** `querystring`: unenv's port of Node's module. */
'use strict';
const ns = require('unenv/node/querystring');
module.exports = Object.assign({}, ns.default);
