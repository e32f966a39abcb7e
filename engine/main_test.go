package engine_test

import (
	"os"
	"testing"

	"github.com/sirupsen/logrus"
)

func TestMain(m *testing.M) {
	// GMS's server logs every connection through logrus.
	logrus.SetLevel(logrus.ErrorLevel)
	os.Exit(m.Run())
}
