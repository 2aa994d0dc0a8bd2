"""Reads an OTF2 archive with the OTF2 Python bindings and prints, as JSON,
each location's Enter events per region and whether its events are
balanced (every enter left, in order) and in time order; the location
groups with the system tree nodes above them; the clock properties; and
MPI's point-to-point messages, each send matched with its receive (by
sender, receiver, communicator and tag, in order), with those left
unmatched."""
import collections
import json
import sys

import otf2


def main(path):
    enters = collections.defaultdict(collections.Counter)
    group_enters = collections.defaultdict(lambda: collections.defaultdict(collections.Counter))
    stacks = collections.defaultdict(list)
    last_time = {}
    problems = []
    kinds = collections.Counter()
    sends = collections.defaultdict(collections.deque)
    messages = []
    unmatched_receives = []
    with otf2.reader.open(path) as trace:
        definitions = trace.definitions
        locations = [location.name for location in definitions.locations]
        groups = []
        for group in definitions.location_groups:
            above = []
            node = group.system_tree_parent
            while node is not None:
                above.append({"name": node.name, "class": node.class_name})
                node = node.parent
            groups.append({"name": group.name, "above": above})
        clock = definitions.clock_properties
        for location, event in trace.events:
            if isinstance(event, (otf2.events.MpiSend, otf2.events.MpiIsend)):
                to = event.communicator.location(event.receiver).group.name
                key = (location.group.name, to, event.communicator.name, event.msg_tag)
                sends[key].append((event.time, event.msg_length))
            elif isinstance(event, (otf2.events.MpiRecv, otf2.events.MpiIrecv)):
                source = event.communicator.location(event.sender).group.name
                key = (source, location.group.name, event.communicator.name, event.msg_tag)
                if sends[key]:
                    sent_at, sent_bytes = sends[key].popleft()
                    messages.append(
                        {
                            "from": key[0],
                            "to": key[1],
                            "communicator": key[2],
                            "tag": key[3],
                            "sent_bytes": sent_bytes,
                            "received_bytes": event.msg_length,
                            "sent_at": sent_at,
                            "received_at": event.time,
                        }
                    )
                else:
                    unmatched_receives.append(list(key))
            name = location.name
            # Threads of different processes share their names.
            place = f"{location.group.name} {name}"
            kinds[type(event).__name__] += 1
            if event.time < last_time.get(place, 0):
                problems.append(f"{place}: time goes back at {event.time}")
            last_time[place] = event.time
            if isinstance(event, otf2.events.Enter):
                enters[name][event.region.name] += 1
                group_enters[location.group.name][name][event.region.name] += 1
                stacks[place].append(event.region.name)
            elif isinstance(event, otf2.events.Leave):
                if not stacks[place] or stacks[place][-1] != event.region.name:
                    problems.append(f"{place}: leaves {event.region.name} not entered last")
                else:
                    stacks[place].pop()
    for place, stack in stacks.items():
        if stack:
            problems.append(f"{place}: {len(stack)} regions never left")
    print(
        json.dumps(
            {
                "locations": locations,
                "enters": {name: dict(counts) for name, counts in enters.items()},
                "group_enters": {
                    group: {name: dict(counts) for name, counts in threads.items()}
                    for group, threads in group_enters.items()
                },
                "events": dict(kinds),
                "problems": problems,
                "location_groups": groups,
                "clock": {
                    "resolution": clock.timer_resolution,
                    "global_offset": clock.global_offset,
                    "trace_length": clock.trace_length,
                    "realtime": clock.realtime_timestamp,
                },
                "messages": messages,
                "unmatched_sends": [list(key) for key, left in sends.items() for _ in left],
                "unmatched_receives": unmatched_receives,
            }
        )
    )


main(sys.argv[1])
