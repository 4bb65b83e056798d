import com.collibra.dgc.core.api.dto.instance.asset.FindAssetsRequest

def domainId = execution.getVariable("domainId")
def limit = 100

/**
 * Every asset in the domain, page by page.
 */
def findAll(String domain) {
    def found = []
    def offset = 0
    while (true) {
        def page = assetApi.findAssets(FindAssetsRequest.builder()
            .domainId(UUID.fromString(domain))
            .offset(offset)
            .limit(limit)
            .build())
        found.addAll(page.getResults())
        if (page.getResults().size() < limit) {
            return found
        }
        offset += limit
    }
}

def describe = { asset ->
    "${asset.getName()} (${asset.getId()})"
}

class Report {
    String title
    List<String> lines = []

    void add(String line) {
        lines << line
    }

    String render() {
        return ([title] + lines).join("\n")
    }
}

def report = new Report(title: "Assets")
findAll(domainId).each { report.add(describe(it)) }
execution.setVariable("report", report.render())
