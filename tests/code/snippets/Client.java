package com.example.sync;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/**
 * Talks to the Collibra import API.
 */
public class ImportClient {
    private static final String PATH = "/rest/2.0/import/json-job";
    private final HttpClient http;
    private final URI base;

    /** Builds a client for one instance. */
    public ImportClient(URI base) {
        this.base = base;
        this.http = HttpClient.newHttpClient();
    }

    /**
     * Starts an import job.
     *
     * @param body the JSON to import
     * @return the job id
     */
    @Deprecated
    public String startImport(String body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(base.resolve(PATH))
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("import failed: " + response.body());
        }
        return response.body();
    }

    enum Mode {
        SYNC, ASYNC;

        boolean waits() {
            return this == SYNC;
        }
    }

    record Job(String id, String state) {}

    interface Listener {
        void done(Job job);
    }
}
