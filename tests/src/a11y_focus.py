"""Prints, as one JSON line, what the window titled argv[1] has focused, as the accessibility bus
(AT-SPI) reports it: {"window": bool, "role": str | null, "text": str | null}.

A native dialog (GTK's file chooser) takes keys before it is ready for them and shows nothing
outside itself when it is; what it tells assistive technology is the state a test can wait for:
which of its parts has the keyboard, and what a text field holds. Run with Debian's python3 (its
python3-gi and gir1.2-atspi-2.0), inside the app's D-Bus session.
"""

import json
import sys

import gi

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi  # noqa: E402


def focused(node, depth=0):
    """The focused node at or under `node`, if any."""
    if node is None or depth > 60:
        return None
    if node.get_state_set().contains(Atspi.StateType.FOCUSED):
        return node
    for i in range(node.get_child_count()):
        found = focused(node.get_child_at_index(i), depth + 1)
        if found is not None:
            return found
    return None


def main(title):
    out = {"window": False, "role": None, "text": None}
    desktop = Atspi.get_desktop(0)
    for a in range(desktop.get_child_count()):
        app = desktop.get_child_at_index(a)
        if app is None:
            continue
        for w in range(app.get_child_count()):
            window = app.get_child_at_index(w)
            if window is None or window.get_name() != title:
                continue
            out["window"] = True
            node = focused(window)
            if node is not None:
                out["role"] = node.get_role_name()
                if node.get_text_iface() is not None:
                    out["text"] = Atspi.Text.get_text(node, 0, -1)
            print(json.dumps(out))
            return
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1])
