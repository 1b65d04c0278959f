// SPDX-License-Identifier: MIT
// gatehouse: the desktop console.

#include <mainwindow.h>
#include <redis/endpointoptions.h>
#include <redis/redisclient.h>

#include <QApplication>
#include <QCommandLineParser>
#include <QMessageBox>
#include <QTextStream>

using namespace gatehouse;

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("gatehouse"));
    QApplication::setApplicationDisplayName(QStringLiteral("Gatehouse"));
    QApplication::setOrganizationName(QStringLiteral("Gatehouse"));
    QApplication::setApplicationVersion(QStringLiteral(GATEHOUSE_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("gatehouse"));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Operator console for Redis-based limiters, locks, tokens and queues."));
    parser.addHelpOption();
    parser.addVersionOption();
    const EndpointOptions endpointOptions;
    endpointOptions.addTo(parser);
    parser.process(app);

    QString error;
    const auto endpoint = endpointOptions.endpoint(parser, &error);
    if (!endpoint) {
        QTextStream(stderr) << "gatehouse: " << error << Qt::endl;
        return 2;
    }

    RedisClient client(*endpoint);
    MainWindow window(&client);
    window.show();
    client.open();
    return app.exec();
}
