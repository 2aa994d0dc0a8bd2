"""Reads an OTF2 archive with the OTF2 Python bindings and prints, as JSON,
each location's Enter events per region and whether its events are
balanced (every enter left, in order) and in time order."""
import collections
import json
import sys

import otf2


def main(path):
    enters = collections.defaultdict(collections.Counter)
    stacks = collections.defaultdict(list)
    last_time = {}
    problems = []
    kinds = collections.Counter()
    with otf2.reader.open(path) as trace:
        locations = [location.name for location in trace.definitions.locations]
        for location, event in trace.events:
            name = location.name
            kinds[type(event).__name__] += 1
            if event.time < last_time.get(name, 0):
                problems.append(f"{name}: time goes back at {event.time}")
            last_time[name] = event.time
            if isinstance(event, otf2.events.Enter):
                enters[name][event.region.name] += 1
                stacks[name].append(event.region.name)
            elif isinstance(event, otf2.events.Leave):
                if not stacks[name] or stacks[name][-1] != event.region.name:
                    problems.append(f"{name}: leaves {event.region.name} not entered last")
                else:
                    stacks[name].pop()
    for name, stack in stacks.items():
        if stack:
            problems.append(f"{name}: {len(stack)} regions never left")
    print(
        json.dumps(
            {
                "locations": locations,
                "enters": {name: dict(counts) for name, counts in enters.items()},
                "events": dict(kinds),
                "problems": problems,
            }
        )
    )


main(sys.argv[1])
