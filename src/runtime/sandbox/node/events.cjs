/** `events`: the npm `events` package (Node's EventEmitter); the module is the EventEmitter, as in Node. */
'use strict';
module.exports = require('events/');
