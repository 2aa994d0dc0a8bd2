"""Reads a CUBE4 archive with pycubexr and prints what the tests compare,
as JSON: the locations, for every call path (the region names from the
root) each location's visits and its time, inclusive and exclusive, the
time metric's children (waiting, task creation, MPI) added in, and each
metric's own values summed over the call paths, location by location."""
import json
import sys

from pycubexr import CubexParser


def every_metric(metrics):
    for metric in metrics:
        yield metric
        yield from every_metric(metric.childs)


def main(path):
    with CubexParser(path) as cube:
        locations = cube.get_locations()
        visits = cube.get_metric_values(cube.get_metric_by_name("visits"))
        time_metrics = []

        def walk(metric):
            time_metrics.append(cube.get_metric_values(metric))
            for child in metric.childs:
                walk(child)

        walk(cube.get_metric_by_name("time"))
        paths = []

        def visit(cnode, prefix):
            path = prefix + [cube.get_region(cnode).name]
            inclusive = [0.0] * len(locations)
            exclusive = [0.0] * len(locations)
            for values in time_metrics:
                for at, value in enumerate(values.cnode_values(cnode, convert_to_inclusive=True)):
                    inclusive[at] += float(value)
                for at, value in enumerate(values.cnode_values(cnode)):
                    exclusive[at] += float(value)
            paths.append(
                {
                    "path": path,
                    "visits": [int(v) for v in visits.cnode_values(cnode)],
                    "inclusive_s": inclusive,
                    "exclusive_s": exclusive,
                }
            )
            for child in cnode.get_children():
                visit(child, path)

        for root in cube.get_root_cnodes():
            visit(root, [])
        totals = {}
        for metric in every_metric(cube.get_metrics()):
            values = cube.get_metric_values(metric)
            summed = [0.0] * len(locations)
            for cnode in cube.all_cnodes():
                for at, value in enumerate(values.cnode_values(cnode)):
                    summed[at] += float(value)
            totals[metric.name] = summed
        print(
            json.dumps(
                {
                    "locations": [location.name for location in locations],
                    "metrics": [m.name for m in every_metric(cube.get_metrics())],
                    "cnodes": paths,
                    "totals": totals,
                }
            )
        )


main(sys.argv[1])
