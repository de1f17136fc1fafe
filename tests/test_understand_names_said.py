"""What a name said means, on a small home of its own (issue 24, stop 33).

- a device named after its room ("shelly1pm-kitchen", "esp32 garage") lends the room's
  word no noun of its own: "what's on in the kitchen" is every device in the kitchen;
- a time word inside a name said is the name's: "activate cosy evening" is the scene
  now, not an activation put off till tonight with no scene; a time beside a name still
  schedules ("turn on the porch lantern this evening");
- "is there a problem with the dishwasher", "is there any sound from the baby monitor":
  a class's word right after "there" names what exists (a reading), not a state;
- words before a kind's word that name only devices of another kind ("is the car
  charged": the car battery's) name no device of that kind, never the phone's sensor;
- (stop 33 continued) a thing a declined domain names ("the tv") is never the stem or
  brand of a device named for it ("TV Backlight"); "put cosy evening on" is the scene;
  "what is switched on in the garage" is every device there that is on, not only the one
  named after the garage; "is there post in the mailbox": a stem said last after "the"
  ("Mailbox Sensor"); "how's the air in the study": "air" is the air-quality classes;
  "hall blind open?": a question mark after a part not begun by its verb asks (the
  state), while "turn on the porch lantern?" is still a request; "is the awning out": a
  state word of another kind's ("out": lights off, an awning open) finds the awning.
"""

from __future__ import annotations

import pytest

from mnemolis.config import Config
from mnemolis.understand import Understander
from tests.support_targets import check_part, small_home
from tests.support_targets import device as _d

DEVICES = [
    _d("shelly_kitchen", "shelly1pm-kitchen", "light", "kitchen"),
    _d("counter", "Counter Lights", "light", "kitchen"),
    _d("kettle", "Kettle", "switch", "kitchen"),
    _d("esp_garage", "esp32 garage", "light", "garage"),
    _d("garage_plug", "Garage Fridge", "switch", "garage"),
    _d("scene_cosy", "Cosy Evening", "scene", "lounge"),
    _d("scene_morning", "Good Morning", "scene", "bedroom"),
    _d("lantern", "Porch Lantern", "light", "porch"),
    _d("baby_sound", "Baby Monitor Sound", "binary_sensor", "nursery", device_class="sound"),
    _d("dish_problem", "Dishwasher Problem", "binary_sensor", "kitchen", device_class="problem"),
    _d("hall_light", "Hall Light", "light", "hall"),
    _d("hall_blind", "Hall Blind", "cover", "hall", features=["position"]),
    _d("car_battery", "Car Battery", "sensor", None, device_class="battery"),
    _d("car_mileage", "Car Mileage", "sensor", None, device_class="distance"),
    _d("phone_charging", "Phone Charging", "binary_sensor", None, device_class="battery_charging"),
    _d("tv_backlight", "TV Backlight", "light", "lounge"),
    _d("radio_lamp", "Radio Lamp", "light", "kitchen"),
    _d("mailbox", "Mailbox Sensor", "binary_sensor", None, device_class="vibration"),
    _d("study_co2", "Study CO2", "sensor", "study", device_class="carbon_dioxide"),
    _d("lounge_pm25", "Lounge Particulates", "sensor", "lounge", device_class="pm25"),
    _d("awning", "Patio Awning", "cover", "patio", device_class="awning"),
]

KITCHEN = ["counter", "kettle", "radio_lamp", "shelly_kitchen"]


@pytest.fixture(scope="module")
def home(config: Config) -> Understander:
    return small_home(config, DEVICES)


@pytest.mark.parametrize(
    ("text", "intent", "ids"),
    [
        ("what's on in the kitchen", "device.which", KITCHEN),
        ("is anything on in the kitchen", "device.state", KITCHEN),
        ("turn on the esp32 garage", "device.turn_on", ["esp_garage"]),
        ("switch off the shelly1pm kitchen", "device.turn_off", ["shelly_kitchen"]),
        ("turn on the lights in the garage", "device.turn_on", ["esp_garage"]),
        ("activate cosy evening", "device.activate", ["scene_cosy"]),
        ("turn on cosy evening", "device.activate", ["scene_cosy"]),
        ("set the scene to cosy evening", "device.activate", ["scene_cosy"]),
        ("activate good morning", "device.activate", ["scene_morning"]),
        ("put cosy evening on", "device.activate", ["scene_cosy"]),
        ("what is switched on in the garage", "device.which", ["esp_garage", "garage_plug"]),
        ("turn on the tv backlight", "device.turn_on", ["tv_backlight"]),
        ("is there post in the mailbox", "sensor.read", ["mailbox"]),
        ("how's the air in the study", "sensor.read", ["study_co2"]),
        ("how is the air in the lounge", "sensor.read", ["lounge_pm25"]),
        ("hall blind open?", "device.state", ["hall_blind"]),
        ("is the awning out", "device.state", ["awning"]),
        ("hall light off?", "device.state", ["hall_light"]),
        ("turn on the porch lantern?", "device.turn_on", ["lantern"]),
        ("is there any sound from the baby monitor", "sensor.read", ["baby_sound"]),
        ("is there a problem with the dishwasher", "sensor.read", ["dish_problem"]),
        ("is the dishwasher problem on", "device.state", ["dish_problem"]),
        ("is there a light on in the hall", "device.state", ["hall_light"]),
        ("what position is the hall blind at", "device.state", ["hall_blind"]),
        ("is the car charged", "device.state", []),
        ("is the phone charged", "device.state", ["phone_charging"]),
        ("is the car battery low", "device.state", ["car_battery"]),
    ],
)
def test_what_the_name_said_means(
    home: Understander, text: str, intent: str, ids: list[str]
) -> None:
    part = check_part(home, text, None, intent, ids, [])
    assert part.schedule is None, part.to_dict()


def test_a_time_beside_a_name_still_schedules(home: Understander) -> None:
    text = "turn on the porch lantern this evening"
    part = check_part(home, text, None, "device.turn_on", ["lantern"], [])
    assert part.schedule is not None


@pytest.mark.parametrize(
    "text", ["turn on the tv", "switch off the television", "turn on the radio"]
)
def test_a_thing_the_home_has_none_of_acts_on_no_device_named_for_it(
    home: Understander, text: str
) -> None:
    for part in home.understand(text).parts():
        assert not part.slots.get("device"), part.to_dict()
