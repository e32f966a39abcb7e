package catalogstore

import (
	"fmt"
	"sort"
	"strconv"
)

func itoa(i int64) string { return strconv.FormatInt(i, 10) }

// formatSnapID zero-pads snapshot ids so documents list in id order.
func formatSnapID(id int64) string { return fmt.Sprintf("%019d", id) }

func sortStatements(s []Statement) {
	sort.SliceStable(s, func(i, j int) bool { return s[i].CreatedAt.Before(s[j].CreatedAt) })
}
