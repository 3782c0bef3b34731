/**
 * The SLOWLOG threshold, µs, while the sync bench times script calls, to find the longest call.
 * Redis logs the commands a script runs as well as the script call, so a threshold of 0 logged every
 * ZADD and HSET inside sync.lua (four or five per key-sync): the log entries' copies and frees
 * doubled the Redis CPU the bench charged to a key-sync, and the floor, timed with the log off, paid
 * none of it. One command on one key takes a few µs; one script call of a chunk holds Redis for
 * hundreds: this threshold logs the calls and not what they run.
 */
export const HOLD_SLOWLOG_US = 100;
