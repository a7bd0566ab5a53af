"""Reading /metrics as Prometheus would, through the site's own HTTP path."""

from prometheus_client.parser import text_string_to_metric_families


def scrape(client, **extra):
    """{(sample name, ((label, value), ...)): value} of one GET /metrics."""
    response = client.get("/metrics", **extra)
    assert response.status_code == 200, response.content
    found = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def value(samples, name, **labels):
    """One sample's value, 0 when the process has not counted it yet."""
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


class Moved:
    """What the samples named in `wanted` ((name, labels) pairs) moved by between two
    scrapes: `moved = Moved(client, ...)`, the event, then `moved()`."""

    def __init__(self, client, *wanted):
        self.client = client
        self.wanted = wanted
        self.before = scrape(client)

    def __call__(self):
        after = scrape(self.client)
        return [
            value(after, name, **labels) - value(self.before, name, **labels)
            for name, labels in self.wanted
        ]
