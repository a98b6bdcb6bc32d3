package i18n

import "testing"

func TestFromEnv(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want Lang
	}{
		{"nothing set", nil, EN},
		{"LANG japanese", map[string]string{"LANG": "ja_JP.UTF-8"}, JA},
		{"LANG english", map[string]string{"LANG": "en_US.UTF-8"}, EN},
		{"LC_ALL wins over LANG", map[string]string{"LC_ALL": "C", "LANG": "ja_JP.UTF-8"}, EN},
		{"LC_MESSAGES before LANG", map[string]string{"LC_MESSAGES": "ja_JP", "LANG": "en_US"}, JA},
		{"empty LC_ALL skipped", map[string]string{"LC_ALL": "", "LANG": "ja"}, JA},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FromEnv(func(k string) string { return tt.env[k] })
			if got != tt.want {
				t.Errorf("FromEnv(%v) = %q; want %q", tt.env, got, tt.want)
			}
		})
	}
}

func TestParse(t *testing.T) {
	for in, want := range map[string]Lang{"ja": JA, " EN ": EN, "En": EN} {
		got, err := Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := Parse("fr"); err == nil {
		t.Errorf("Parse(\"fr\") succeeded; want an error")
	}
}

func TestMsg(t *testing.T) {
	m := Msg{JA: "%d 件", EN: "%d records"}
	if got := m.Format(JA, 3); got != "3 件" {
		t.Errorf("Format(JA) = %q; want %q", got, "3 件")
	}
	if got := m.Format(EN, 3); got != "3 records" {
		t.Errorf("Format(EN) = %q; want %q", got, "3 records")
	}
}
