"use strict";
const fetch = require("node-fetch");

// Logs in and keeps the cookie.
async function login(base, user, password) {
  const response = await fetch(`${base}/rest/2.0/auth/sessions`, {
    method: "POST",
    body: JSON.stringify({ username: user, password }),
  });
  return response.headers.get("set-cookie");
}

class Importer {
  constructor(base) {
    this.base = base;
  }

  async run(job) {
    return fetch(`${this.base}/rest/2.0/import/json-job`, { method: "POST", body: job });
  }
}

module.exports.handler = async (event) => {
  const cookie = await login(event.base, event.user, event.password);
  return new Importer(event.base).run(event.job, cookie);
};
