// autocannon's setupRequest, run in its worker thread (so CommonJS, by path): each request asks the next of the
// questions in the file BENCH_CHAT_QUESTIONS names, which the benchmark writes before the load starts.
const { readFileSync } = require("node:fs");

const questions = JSON.parse(readFileSync(process.env.BENCH_CHAT_QUESTIONS, "utf8"));
let next = 0;

module.exports = (request) => ({ ...request, body: JSON.stringify({ message: questions[next++ % questions.length] }) });
