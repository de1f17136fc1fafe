"""The platform configs the platform tables drive: real ones (zigbee2mqtt's Home Assistant
extension tests, Home Assistant's MQTT documentation examples), by a short name."""

from __future__ import annotations

from typing import Any

Z2M_AVAILABILITY = [
    {"topic": "zigbee2mqtt/bridge/state", "value_template": "{{ value_json.state }}"}
]

CONFIGS: dict[str, tuple[str, dict[str, Any]]] = {
    # Home Assistant's fan docs, "Full configuration" (percentage and preset modes)
    "bedroom fan": (
        "fan",
        {
            "name": "Bedroom Fan",
            "state_topic": "bedroom_fan/on/state",
            "command_topic": "bedroom_fan/on/set",
            "direction_state_topic": "bedroom_fan/direction/state",
            "direction_command_topic": "bedroom_fan/direction/set",
            "oscillation_state_topic": "bedroom_fan/oscillation/state",
            "oscillation_command_topic": "bedroom_fan/oscillation/set",
            "percentage_state_topic": "bedroom_fan/speed/percentage_state",
            "percentage_command_topic": "bedroom_fan/speed/percentage",
            "preset_mode_state_topic": "bedroom_fan/preset/preset_mode_state",
            "preset_mode_command_topic": "bedroom_fan/preset/preset_mode",
            "preset_modes": ["auto", "smart", "whoosh", "eco", "breeze"],
            "qos": 0,
            "payload_on": "true",
            "payload_off": "false",
            "payload_oscillation_on": "true",
            "payload_oscillation_off": "false",
            "speed_range_min": 1,
            "speed_range_max": 10,
        },
    ),
    # zigbee2mqtt test/extensions/homeassistant.test.ts, "Should discover devices with fan"
    "z2m fan": (
        "fan",
        {
            "state_topic": "zigbee2mqtt/fan",
            "state_value_template": "{{ value_json.fan_state }}",
            "command_topic": "zigbee2mqtt/fan/set/fan_state",
            "percentage_state_topic": "zigbee2mqtt/fan",
            "percentage_command_topic": "zigbee2mqtt/fan/set/fan_mode",
            "percentage_value_template": "{{ {'off':0, 'low':1, 'medium':2, 'high':3, 'on':4}"
            "[value_json.fan_mode] | default('None') }}",
            "percentage_command_template": "{{ {0:'off', 1:'low', 2:'medium', 3:'high', 4:'on'}"
            "[value] | default('') }}",
            "preset_mode_state_topic": "zigbee2mqtt/fan",
            "preset_mode_command_topic": "zigbee2mqtt/fan/set/fan_mode",
            "preset_mode_value_template": "{{ value_json.fan_mode if value_json.fan_mode in ['smart']"
            " else 'None' | default('None') }}",
            "preset_modes": ["smart"],
            "speed_range_min": 1,
            "speed_range_max": 4,
            "name": None,
            "device": {"identifiers": ["zigbee2mqtt_0x0017880104e45548"], "name": "fan"},
            "availability": Z2M_AVAILABILITY,
        },
    ),
    # zigbee2mqtt, "Should discover devices with cover_position"
    "smart vent": (
        "cover",
        {
            "command_topic": "zigbee2mqtt/smart vent/set",
            "position_topic": "zigbee2mqtt/smart vent",
            "set_position_topic": "zigbee2mqtt/smart vent/set",
            "set_position_template": '{ "position": {{ position }} }',
            "position_template": "{{ value_json.position }}",
            "state_topic": "zigbee2mqtt/smart vent",
            "value_template": "{{ value_json.state }}",
            "state_open": "OPEN",
            "state_closed": "CLOSE",
            "state_stopped": "STOP",
            "name": None,
            "device": {"name": "smart vent"},
        },
    ),
    "shutter 255": (
        "cover",
        {
            "name": "Shutter",
            "cmd_t": "sh/set",
            "pos_t": "sh/pos",
            "set_pos_t": "sh/pos/set",
            "pos_open": 255,
            "pos_clsd": 0,
            "tilt_cmd_t": "sh/tilt/set",
            "tilt_status_t": "sh/tilt",
            "tilt_min": 0,
            "tilt_max": 180,
            "pl_stop": None,
        },
    ),
    "position only": ("cover", {"name": "Awning", "pos_t": "aw/pos", "set_pos_t": "aw/pos/set"}),
    "valve": ("valve", {"name": "Garden Tap", "cmd_t": "tap/set", "stat_t": "tap/state"}),
    "position valve": (
        "valve",
        {
            "name": "Radiator Valve",
            "cmd_t": "rv/set",
            "stat_t": "rv/state",
            "reports_position": True,
            "cmd_tpl": '{"position": {{ value }}}',
            "pl_stop": "STOP",
        },
    ),
    # Home Assistant's lock docs, "Full configuration"
    "code lock": (
        "lock",
        {
            "name": "Frontdoor",
            "state_topic": "home-assistant/frontdoor/state",
            "code_format": "^\\d{4}$",
            "command_topic": "home-assistant/frontdoor/set",
            "command_template": '{ "action": "{{ value }}", "code":"{{ code }}" }',
            "payload_lock": "LOCK",
            "payload_unlock": "UNLOCK",
            "state_locked": "LOCK",
            "state_unlocked": "UNLOCK",
            "state_locking": "LOCKING",
            "state_unlocking": "UNLOCKING",
            "state_jammed": "MOTOR_JAMMED",
            "qos": 1,
            "retain": True,
            "value_template": "{{ value.x }}",
        },
    ),
    "lock": (
        "lock",
        {
            "name": "Shed",
            "stat_t": "shed/state",
            "cmd_t": "shed/set",
            "cmd_tpl": '{ "action": "{{ value }}", "code":"{{ code }}" }',
            "pl_open": "OPEN",
            "stat_jam": "MOTOR_JAMMED",
        },
    ),
    # zigbee2mqtt, "Should discover thermostat devices"
    "trv": (
        "climate",
        {
            "action_template": "{% set values = {None:None,'idle':'idle','heat':'heating',"
            "'cool':'cooling','fan_only':'fan'} %}{{ values[value_json.running_state] }}",
            "action_topic": "zigbee2mqtt/TS0601_thermostat",
            "current_temperature_template": "{{ value_json.local_temperature }}",
            "current_temperature_topic": "zigbee2mqtt/TS0601_thermostat",
            "preset_mode_command_topic": "zigbee2mqtt/TS0601_thermostat/set/preset",
            "preset_modes": ["schedule", "manual", "boost", "complex", "comfort", "eco", "away"],
            "preset_mode_value_template": "{{ value_json.preset }}",
            "preset_mode_state_topic": "zigbee2mqtt/TS0601_thermostat",
            "max_temp": "35",
            "min_temp": "5",
            "mode_command_topic": "zigbee2mqtt/TS0601_thermostat/set/system_mode",
            "mode_state_template": "{{ value_json.system_mode }}",
            "mode_state_topic": "zigbee2mqtt/TS0601_thermostat",
            "modes": ["heat", "auto", "off"],
            "name": None,
            "temp_step": 0.5,
            "temperature_command_topic": "zigbee2mqtt/TS0601_thermostat/set/current_heating_setpoint",
            "temperature_state_template": "{{ value_json.current_heating_setpoint }}",
            "temperature_state_topic": "zigbee2mqtt/TS0601_thermostat",
            "temperature_unit": "C",
            "device": {"name": "TS0601_thermostat"},
        },
    ),
    # zigbee2mqtt, "Should discover Bosch BTH-RA with a compatibility mapping"
    "bosch": (
        "climate",
        {
            "current_temperature_template": "{{ value_json.local_temperature }}",
            "current_temperature_topic": "zigbee2mqtt/bosch_radiator",
            "max_temp": "30",
            "min_temp": "5",
            "mode_command_template": "{% set values = { 'auto':'schedule','heat':'manual',"
            "'off':'pause'} %}{\"operating_mode\": \"{{ values[value] if value in values.keys() "
            "else 'pause' }}\"}",
            "mode_command_topic": "zigbee2mqtt/bosch_radiator/set",
            "mode_state_template": "{% set values = {'schedule':'auto','manual':'heat','pause':'off'}"
            " %}{% set value = value_json.operating_mode %}{{ values[value] if value in "
            "values.keys() else 'off' }}",
            "mode_state_topic": "zigbee2mqtt/bosch_radiator",
            "modes": ["off", "heat", "auto"],
            "name": None,
            "temperature_command_topic": "zigbee2mqtt/bosch_radiator/set/occupied_heating_setpoint",
            "temperature_state_template": "{{ value_json.occupied_heating_setpoint }}",
            "temperature_state_topic": "zigbee2mqtt/bosch_radiator",
            "temperature_unit": "C",
            "device": {"name": "bosch_radiator"},
        },
    ),
    # zigbee2mqtt, "Should discover Bosch BTH-RM230Z with a current_humidity attribute"
    "rm230z": (
        "climate",
        {
            "current_humidity_template": "{{ value_json.humidity }}",
            "current_humidity_topic": "zigbee2mqtt/bosch_rm230z",
            "mode_command_topic": "zigbee2mqtt/bosch_rm230z/set/system_mode",
            "modes": ["off", "heat", "cool"],
            "name": None,
            "temperature_high_command_topic": "zigbee2mqtt/bosch_rm230z/set/occupied_cooling_setpoint",
            "temperature_low_command_topic": "zigbee2mqtt/bosch_rm230z/set/occupied_heating_setpoint",
            "temperature_unit": "C",
            "device": {"name": "bosch_rm230z"},
        },
    ),
    "power climate": (
        "climate",
        {
            "name": "Aircon",
            "power_command_topic": "ac/power/set",
            "payload_on": "1",
            "payload_off": "0",
            "mode_command_topic": "ac/mode/set",
            "fan_mode_command_topic": "ac/fan/set",
            "swing_mode_command_topic": "ac/swing/set",
            "target_humidity_command_topic": "ac/humidity/set",
        },
    ),
    # Home Assistant's humidifier docs, "Full configuration"
    "humidifier": (
        "humidifier",
        {
            "name": "Bedroom humidifier",
            "device_class": "humidifier",
            "state_topic": "test-humidifier/on/state",
            "action_topic": "test-humidifier/action",
            "command_topic": "test-humidifier/on/set",
            "current_humidity_topic": "test-humidifier/humidity/current",
            "target_humidity_command_topic": "test-humidifier/humidity/set",
            "target_humidity_state_topic": "test-humidifier/humidity/state",
            "mode_state_topic": "test-humidifier/mode/state",
            "mode_command_topic": "test-humidifier/preset/preset_mode",
            "modes": ["normal", "eco", "away", "boost", "comfort", "home", "sleep", "auto", "baby"],
            "qos": 0,
            "payload_on": "true",
            "payload_off": "false",
            "min_humidity": 30,
            "max_humidity": 80,
        },
    ),
    # Home Assistant's water heater docs, "Full configuration"
    "boiler": (
        "water_heater",
        {
            "name": "Boiler",
            "modes": ["off", "eco", "performance"],
            "mode_command_topic": "basement_boiler/mode/set",
            "mode_state_topic": "basement_boiler/mode/state",
            "temperature_command_topic": "basement_boiler/temperature/set",
            "temperature_state_topic": "basement_boiler/temperature/state",
            "current_temperature_topic": "basement_boiler/current_temperature",
            "power_command_topic": "basement_boiler/power/set",
            "temperature_unit": "C",
        },
    ),
    # Home Assistant's vacuum docs (state schema)
    "vacuum": (
        "vacuum",
        {
            "name": "MQTT Vacuum",
            "supported_features": [
                "start",
                "pause",
                "stop",
                "return_home",
                "status",
                "locate",
                "clean_spot",
                "fan_speed",
                "send_command",
            ],
            "command_topic": "vacuum/command",
            "set_fan_speed_topic": "vacuum/set_fan_speed",
            "fan_speed_list": ["min", "medium", "high", "max"],
            "send_command_topic": "vacuum/send_command",
            "state_topic": "vacuum/state",
        },
    ),
    "basic vacuum": ("vacuum", {"name": "Robo", "cmd_t": "robo/cmd", "stat_t": "robo/state"}),
    "mower": (
        "lawn_mower",
        {
            "name": "Mower",
            "activity_state_topic": "mower/activity",
            "start_mowing_command_topic": "mower/start",
            "pause_command_topic": "mower/pause",
            "dock_command_topic": "mower/dock",
            "dock_command_template": '{"action": "{{ value }}"}',
        },
    ),
    "siren": (
        "siren",
        {
            "name": "Alarm",
            "cmd_t": "siren/set",
            "stat_t": "siren/state",
            "av_tones": ["ping", "siren"],
        },
    ),
    "siren template": ("siren", {"name": "Bell", "cmd_t": "bell/set", "cmd_tpl": "{{ value }}"}),
    "alarm": (
        "alarm_control_panel",
        {"name": "House Alarm", "cmd_t": "alarm/set", "stat_t": "alarm/state"},
    ),
    "code alarm": (
        "alarm_control_panel",
        {
            "name": "Safe",
            "cmd_t": "safe/set",
            "stat_t": "safe/state",
            "code": "REMOTE_CODE",
            "code_arm_required": False,
        },
    ),
    # zigbee2mqtt, "Should rediscover scenes when a scene is changed"
    "scene": (
        "scene",
        {
            "name": "Chill scene",
            "command_topic": "zigbee2mqtt/bulb_color_2/set",
            "payload_on": '{ "scene_recall": 1 }',
            "device": {"name": "bulb_color_2"},
        },
    ),
    # zigbee2mqtt, "Should discover bridge entities" (the restart button)
    "restart": (
        "button",
        {
            "name": "Restart",
            "device_class": "restart",
            "command_topic": "zigbee2mqtt/bridge/request/restart",
            "payload_press": "",
            "device": {"name": "Zigbee2MQTT Bridge"},
        },
    ),
    "button": ("button", {"name": "Doorbell", "cmd_t": "bell/press"}),
    # zigbee2mqtt, "Should discover bridge entities" (the log level select)
    "log level": (
        "select",
        {
            "name": "Log level",
            "state_topic": "zigbee2mqtt/bridge/info",
            "value_template": "{{ value_json.log_level | lower }}",
            "command_topic": "zigbee2mqtt/bridge/request/options",
            "command_template": '{"options": {"advanced": {"log_level": "{{ value }}" } } }',
            "options": ["error", "warning", "info", "debug"],
        },
    ),
    # zigbee2mqtt, "Should discover thermostat devices with writable PI heating demand"
    "demand": (
        "number",
        {
            "command_topic": "zigbee2mqtt/bosch_radiator/set/pi_heating_demand",
            "max": 100,
            "min": 0,
            "name": "PI heating demand",
            "state_topic": "zigbee2mqtt/bosch_radiator",
            "unit_of_measurement": "%",
            "value_template": "{{ value_json.pi_heating_demand }}",
            "device": {"name": "bosch_radiator"},
        },
    ),
    "switch": (
        "switch",
        {
            "name": "Plug",
            "cmd_t": "plug/set",
            "stat_t": "plug/state",
            "pl_on": "1",
            "pl_off": "0",
            "stat_on": "on",
            "stat_off": "off",
        },
    ),
    # zigbee2mqtt, the left endpoint of "wall_switch_double"
    "left": (
        "switch",
        {
            "command_topic": "zigbee2mqtt/wall_switch_double/left/set",
            "name": "Left",
            "payload_off": "OFF",
            "payload_on": "ON",
            "state_topic": "zigbee2mqtt/wall_switch_double",
            "value_template": "{{ value_json.state_left }}",
            "device": {"name": "wall_switch_double"},
        },
    ),
    "temperature": (
        "sensor",
        {
            "unit_of_measurement": "°C",
            "device_class": "temperature",
            "state_class": "measurement",
            "value_template": "{{ value_json.temperature }}",
            "state_topic": "zigbee2mqtt/weather_sensor",
            "device": {"name": "weather_sensor"},
        },
    ),
    "occupancy": (
        "binary_sensor",
        {
            "device_class": "occupancy",
            "value_template": "{{ value_json.occupancy }}",
            "state_topic": "zigbee2mqtt/hall_pir",
            "payload_on": True,
            "payload_off": False,
            "device": {"name": "hall_pir"},
        },
    ),
    "tracker": (
        "device_tracker",
        {"name": "Phone", "stat_t": "phone/where", "pl_home": "home", "pl_not_home": "away"},
    ),
}
